"""A real PostgreSQL server for the table database's tests: Debian's ``postgresql`` package, a throwaway cluster.

``postgres_server()`` runs ``initdb`` on a temporary directory, starts the
server on a free local port (as the ``postgres`` user when the tests run as
root, which PostgreSQL refuses to be) and yields its base URL; it is stopped
and deleted afterwards.  Without PostgreSQL (or psycopg) the tests that need
it skip, unless ``CAVALLO_REQUIRE_POSTGRES=1`` (the Makefile's test step sets
it, and installs the package): then they fail.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid

import pytest

REQUIRE = os.environ.get("CAVALLO_REQUIRE_POSTGRES") == "1"


def pg_bin() -> str | None:
    """The directory of ``initdb`` and ``pg_ctl``: on the PATH, else Debian's newest /usr/lib/postgresql/<v>/bin."""
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]) if
                  d.split("/")[-2].isdigit() else 0)
    return dirs[-1] if dirs and os.path.exists(os.path.join(dirs[-1], "initdb")) else None


def unavailable(why: str):
    if REQUIRE:
        pytest.fail(f"PostgreSQL is required (CAVALLO_REQUIRE_POSTGRES=1) but {why}")
    pytest.skip(f"no PostgreSQL: {why} (apt-get install postgresql; CAVALLO_REQUIRE_POSTGRES=1 makes this fail)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user():
    """The command prefix that runs the server as a user PostgreSQL accepts (root is not one)."""
    if os.geteuid() != 0:
        return [], None
    import pwd

    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        return None, None
    runuser = shutil.which("runuser") or shutil.which("su")
    if runuser is None:
        return None, None
    return ([runuser, "-u", "postgres", "--"] if runuser.endswith("runuser") else None), user


@contextlib.contextmanager
def postgres_server():
    """A running throwaway PostgreSQL server: yields ``postgresql://cavallo@127.0.0.1:<port>``."""
    try:
        import psycopg  # noqa: F401  (the driver the store uses)
    except ImportError:
        unavailable("psycopg is not installed (pip install 'cavallo-env[postgres]')")
    bindir = pg_bin()
    if bindir is None:
        unavailable("initdb was not found")
    prefix, user = _as_user()
    if prefix is None:
        unavailable("the tests run as root and there is no 'postgres' user (or runuser) to run the server as")
    root = tempfile.mkdtemp(prefix="cavallo-pg-")
    data, port = os.path.join(root, "data"), _free_port()
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    try:
        subprocess.run(prefix + [f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "cavallo", "--no-sync",
                                 "-E", "UTF8"], check=True, capture_output=True, text=True)
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run(prefix + [f"{bindir}/pg_ctl", "-D", data, "-l", f"{root}/log", "-w", "-t", "60",
                                 "-o", options, "start"], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        log = open(f"{root}/log").read()[-2000:] if os.path.exists(f"{root}/log") else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {e.stderr or e.stdout}\n{log}") from None
    try:
        yield f"postgresql://cavallo@127.0.0.1:{port}"
    finally:
        subprocess.run(prefix + [f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def new_database(base: str) -> str:
    """A fresh empty database on the server ``base``: its URL."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"{base}/{name}"


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (base URL); skips without one unless CAVALLO_REQUIRE_POSTGRES=1."""
    with postgres_server() as base:
        yield base


@pytest.fixture()
def pg_url(postgres):
    """A fresh database on the session's PostgreSQL server."""
    return new_database(postgres)


def wait_for_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


def token_client(app, **kwargs):
    """A ``TestClient`` of ``app`` that keeps each table's token from its creation and sends it
    (``Authorization: Bearer``) on that table's later calls, unless the call gives its own header."""
    import re

    from fastapi.testclient import TestClient

    table_path = re.compile(r"/v1/tables/([^/?]+)")

    class TokenClient(TestClient):
        tokens: dict = {}

        def request(self, method, url, **kw):
            m = table_path.search(str(url))
            headers = dict(kw.pop("headers", None) or {})
            if m and m.group(1) in self.tokens and not any(k.lower() == "authorization" for k in headers):
                headers["authorization"] = f"Bearer {self.tokens[m.group(1)]}"
            r = super().request(method, url, headers=headers, **kw)
            if method.upper() == "POST" and str(url).rstrip("/").endswith("/v1/tables") and r.status_code == 201:
                body = r.json()
                self.tokens[body["id"]] = body["token"]
            return r

    client = TokenClient(app, **kwargs)
    client.tokens = {}
    return client


@pytest.fixture(scope="module", autouse=True)
def memory_db():
    """Every app a test module makes without a ``db`` keeps its tables in memory (``CAVALLO_DB=sqlite://``),
    not in the user's data directory; import it into a test module to use it there."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CAVALLO_DB", "sqlite://")
        yield
