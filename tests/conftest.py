"""What every test shares: nothing a test runs writes into the user's own data directory.

``cavallo serve`` and ``cavallo people`` keep their tables in a database in the user's data directory
(``$XDG_DATA_HOME/cavallo``, docs/database.md) unless given ``--db``.  The tests point
``XDG_DATA_HOME`` at a temporary directory of their own, set before any test starts so that the
servers and commands the tests run as subprocesses inherit it too.
"""

import atexit
import os
import shutil
import tempfile

_DATA_HOME = tempfile.mkdtemp(prefix="cavallo-tests-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)
