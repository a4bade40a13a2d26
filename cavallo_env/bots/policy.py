"""``policy:<path>``: the in-game AI, an exported policy played through onnxruntime, for every game.

An exported model is two files written by ``cavallo export``: ``<name>.onnx``
(one self-contained ONNX graph: inputs ``obs`` float32 [N, obs_size] and
``mask`` float32 [N, num_actions], plus ``prior`` float32 [N, prior_size] for
a model that reads the game's heuristic prior (computed here from the same
position), outputs ``logits`` [N, num_actions] with illegal actions at -1e9
and ``value`` [N]; Cavalloìcera's sizes are 702, 156 and 312) and the sidecar
``<name>.json`` (format tag, the game, observation layout and action contract
versions, the training config, evaluation results and the sha256 of the
``.onnx``).  Loading (``verify_model``) checks the sidecar against this
``cavallo_env`` (the game's ``Learning``: versions and sizes; a sidecar
without ``"game"`` is Cavalloìcera's), the file against its hash (a sidecar
without ``onnx_sha256`` is refused: ``cavallo export --rehash <name>.onnx``
records it for a file the user vouches for, ``rehash_model``) and every
weight in the graph for NaN and Inf (``check_finite_onnx``), hands onnxruntime
the very bytes it verified, and raises ``ModelError`` saying what does not
match and what to do.

This module never imports torch: the runtime needs only numpy and onnxruntime.

Specs (``cavallo_env.bots.make``):

- ``policy:default``            the shipped model of the view's game (``cavallo_env/models/``:
  ``cavalloicera.onnx`` for Cavalloìcera, ``briscola.onnx``, ``scopa.onnx``)
- ``policy:cavalloicera``, ``policy:briscola``, ``policy:scopa``: one game's shipped model
- ``policy:path/to/model.onnx`` an exported model (the ``.json`` beside it is read too)
- options follow the path, each after an ``@``:
  ``@t=0.5`` (or ``@temperature=0.5``) samples from ``softmax(logits / t)``
  instead of playing the most likely action (``t=0``, the default: greedy);
  ``@threads=2`` sets onnxruntime's intra-op threads (default 1, the fastest
  for one decision at a time); ``@endgame=0`` plays the model's own move
  everywhere (default ``1``: where the game's ending is a game of perfect
  information, Scopa's last round once the stock is empty, the move is the
  exact solver's, ``games.learning.decide_move``, the model's own move first
  among equally good ones); ``@search=1000`` hands the decisions where a
  search measured a gain over the model (``Learning.searched``: Scopa's
  second card of a round while the stock lasts, 5 of a seat's 18 decisions)
  to ``ismcts:1000``, about 0.3 s each, so a decision's median time stays the
  model's but its mean is about 80 ms (default ``0``: the model alone; a game
  without such decisions refuses the option).  Example: ``policy:default@t=0.7``.

A decision (``choose(view)``): the view is checked and rebuilt as a state of
its game (``cavallo_env.games.checked_view``; a malformed or inconsistent view,
or one of another game than the model's, raises ``ViewError``), its
``legal_moves`` must agree with the rules, then the seat's observation and
action mask are fed to the model and the chosen action is stepped through the
game's action space until a move is complete (``games.learning.decide_move``).  Sub-decisions with a
single legal action skip the model.  With a temperature, the random draw of a
decision is seeded from the bot's seed and the view, so the same view always
gets the same move; the bot keeps no state between calls and is safe to call
from several threads at once.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
from pathlib import Path

import numpy as np

from ..budget import ByteCache
from .. import games
from ..games import checked_view
from ..games.learning import decide_move
from ..records import open_temp
from .base import Bot, BotSpecError, PerGameBot, game_of, make, view_seed

#: format tag of an exported model's sidecar
FORMAT = "cavallo-policy/1"
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
#: the shipped model of the default game (the model a view without ``"game"`` is played with)
DEFAULT_MODEL = MODELS_DIR / f"{games.DEFAULT_GAME}.onnx"
#: the games with a shipped model, ``models/<game>.onnx`` (``policy:<game>``; ``policy:default`` picks by the view)
SHIPPED = tuple(games.names())


def shipped_model(game: str) -> Path:
    """The path of ``game``'s shipped model, ``models/<game>.onnx``."""
    return MODELS_DIR / f"{game}.onnx"


def _learning(meta: dict, where):
    name = meta.get("game", games.DEFAULT_GAME)
    try:
        return games.get(name).learning()
    except ValueError as e:
        raise ModelError(f"{where}: the model is of {e}") from None


class ModelError(ValueError):
    """An exported model that is missing, corrupt, foreign or for another layout."""


def sidecar_path(model_path) -> Path:
    """``model.onnx`` -> ``model.json``."""
    return Path(model_path).with_suffix(".json")


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_sidecar(model_path, require_hash: bool = True) -> dict:
    """Read and check the sidecar of ``model_path``; ``ModelError`` if unusable (without
    ``onnx_sha256`` too, unless ``require_hash`` is off: ``rehash_model`` records it)."""
    model_path = Path(model_path)
    meta_path = sidecar_path(model_path)
    if not model_path.is_file():
        raise ModelError(f"{model_path}: model file not found")
    if not meta_path.is_file():
        raise ModelError(f"{meta_path}: the model's sidecar JSON is missing (cavallo export writes <name>.json "
                         f"beside <name>.onnx)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ModelError(f"{meta_path}: not valid JSON ({e}); truncated or foreign file?") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise ModelError(f"{meta_path}: not an exported cavallo policy (format {got!r}, expected {FORMAT!r})")
    learning = _learning(meta, meta_path)
    for key, want in (("obs_version", learning.obs_version), ("action_version", learning.action_version)):
        if meta.get(key) != want:
            raise ModelError(f"{model_path}: the model was exported for {key} {meta.get(key)!r}, but this "
                             f"cavallo-env uses {want!r}; re-export it from a matching checkpoint or install "
                             f"the cavallo-env version it was trained with")
    if (meta.get("obs_size", learning.obs_size) != learning.obs_size
            or meta.get("num_actions", learning.num_actions) != learning.num_actions):
        raise ModelError(f"{meta_path}: the model takes {meta.get('obs_size')} observations and "
                         f"{meta.get('num_actions')} actions, this cavallo-env's {learning.game} has "
                         f"{learning.obs_size} and {learning.num_actions}")
    want_hash = meta.get("onnx_sha256")
    if want_hash is None:
        if not require_hash:
            return meta
        raise ModelError(f"{meta_path}: the sidecar carries no onnx_sha256, so {model_path.name} cannot be verified "
                         f"and is not used; re-export it from its checkpoint (`cavallo export CHECKPOINT --out "
                         f"{model_path}`) or, if you vouch for the file, record its hash with "
                         f"`cavallo export --rehash {model_path}` (docs/in_game_ai.md)")
    if not isinstance(want_hash, str) or not re.fullmatch(r"[0-9a-f]{64}", want_hash):
        raise ModelError(f"{meta_path}: onnx_sha256 is {want_hash!r}, not a sha256 (64 hex digits); "
                         "restore the sidecar or re-export the model")
    return meta


def verify_model(model_path) -> tuple[dict, bytes]:
    """``(sidecar, the file's bytes)`` of an exported model, verified: the sidecar
    (``read_sidecar``), the bytes against its ``onnx_sha256`` and every weight finite
    (``check_finite_onnx``); ``ModelError`` otherwise."""
    model_path = Path(model_path)
    meta = read_sidecar(model_path)
    try:
        data = model_path.read_bytes()
    except OSError as e:
        raise ModelError(f"{model_path}: cannot read the model ({e.strerror or e})") from None
    if hashlib.sha256(data).hexdigest() != meta["onnx_sha256"]:
        raise ModelError(f"{model_path}: the file does not match its sidecar (sha256 differs); "
                         "it was changed, truncated or the sidecar belongs to another export; restore it or "
                         "re-export it from its checkpoint")
    check_finite_onnx(data, model_path)
    return meta, data


def rehash_model(model_path) -> tuple[Path, str, bool]:
    """Record the sha256 of an exported model in a sidecar that lacks it: ``(sidecar, sha256,
    whether the sidecar was changed)``.

    For a file the user vouches for (``cavallo export --rehash``): the sidecar must
    fit this cavallo-env, the graph's weights must be finite and onnxruntime must load
    it; a hash already recorded is never replaced (a different one is an error).
    """
    model_path = Path(model_path)
    meta_path = sidecar_path(model_path)
    meta = read_sidecar(model_path, require_hash=False)
    data = model_path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    want = meta.get("onnx_sha256")
    if want is not None:
        if want != sha:
            raise ModelError(f"{model_path}: the file does not match its sidecar (sha256 differs), and --rehash "
                             "never replaces a recorded hash: restore the file or re-export it from its checkpoint")
        return meta_path, sha, False
    check_finite_onnx(data, model_path)
    _session(data, model_path, 1)  # onnxruntime must accept it
    meta["onnx_sha256"] = sha
    _write_sidecar(meta_path, meta)
    return meta_path, sha, True


def sidecar_text(meta: dict) -> str:
    """A sidecar as ``cavallo export`` writes it."""
    return json.dumps(meta, indent=1, sort_keys=True, default=str) + "\n"


def _write_sidecar(meta_path: Path, meta: dict) -> None:
    """Write a sidecar to a new temporary file beside it, then rename it into place."""
    fd, tmp = open_temp(meta_path.parent, prefix=f".tmp-{meta_path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(sidecar_text(meta))
        os.replace(tmp, meta_path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# -- reading the tensors of an ONNX file (protobuf wire format), without the onnx package ------------
# ModelProto.graph 7, .training_info 20 (TrainingInfoProto.initialization 1, .algorithm 2), .functions 25
# (FunctionProto.node 7); GraphProto.node 1, .initializer 5, .sparse_initializer 15; NodeProto.attribute 5;
# AttributeProto.f 2, .t 5, .g 6, .floats 7, .tensors 10, .graphs 11, .sparse_tensor 22, .sparse_tensors 23;
# SparseTensorProto.values 1; TensorProto.data_type 2, .float_data 4, .int32_data 5, .name 8, .raw_data 9,
# .double_data 10, .data_location 14 (1 = EXTERNAL)
_FLOAT_TYPES = {1: "<f4", 10: "<f2", 11: "<f8", 16: "bfloat16"}


def _varint(buf, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def _fields(buf):
    """``(field number, wire type, value)`` of a protobuf message: an int for varints, a
    memoryview of the bytes for fixed-size and length-delimited fields."""
    i, n = 0, len(buf)
    while i < n:
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, i = buf[i:i + size], i + size
        elif wire == 2:
            size, i = _varint(buf, i)
            value, i = buf[i:i + size], i + size
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if i > n:
            raise ValueError("truncated field")
        yield field, wire, value


def _floats(chunks: list, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        bits = np.concatenate([np.frombuffer(c, "<u2") for c in chunks] or [np.zeros(0, "<u2")])
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return np.concatenate([np.frombuffer(c, dtype) for c in chunks] or [np.zeros(0, dtype)])


def _tensor_bad(buf, where: str, out: list) -> None:
    name, dtype, raw, packed, halves, external = "", None, [], [], [], False
    for field, wire, value in _fields(buf):
        if field == 2 and wire == 0:
            dtype = _FLOAT_TYPES.get(value)
        elif field == 8 and wire == 2:
            name = bytes(value).decode("utf-8", "replace")
        elif field == 9 and wire == 2:
            raw.append(value)
        elif field in (4, 10) and wire != 0:
            packed.append((field, value))
        elif field == 5:  # float16/bfloat16 bits as int32 varints
            if wire == 0:
                halves.append(value)
            elif wire == 2:
                j = 0
                while j < len(value):
                    v, j = _varint(value, j)
                    halves.append(v)
        elif field == 14 and wire == 0 and value == 1:
            external = True
    label = f"{where} {name!r}" if name else where
    if external:
        out.append(f"{label} (stored outside the .onnx file)")
        return
    if dtype is None:
        return
    if raw:
        values = _floats(raw, dtype)
    elif packed:
        values = _floats([v for f, v in packed], "<f8" if packed[0][0] == 10 else "<f4")
    else:
        bits = np.asarray(halves, np.uint32) & 0xFFFF
        values = (bits << 16).view(np.float32) if dtype == "bfloat16" else bits.astype(np.uint16).view(np.float16)
    n = int(values.size - np.isfinite(values).sum())
    if n:
        out.append(f"{label} ({n} of {values.size})")


def _graph_bad(buf, out: list) -> None:
    for field, wire, value in _fields(buf):
        if wire != 2:
            continue
        if field == 5:
            _tensor_bad(value, "initializer", out)
        elif field == 15:
            _sparse_bad(value, "sparse initializer", out)
        elif field == 1:
            _node_bad(value, out)


def _sparse_bad(buf, where: str, out: list) -> None:
    for field, wire, value in _fields(buf):
        if field == 1 and wire == 2:
            _tensor_bad(value, where, out)


def _node_bad(buf, out: list) -> None:
    for field, wire, value in _fields(buf):
        if field == 5 and wire == 2:
            _attribute_bad(value, out)


def _attribute_bad(buf, out: list) -> None:
    name, floats = "", []
    for field, wire, value in _fields(buf):
        if field == 1 and wire == 2:
            name = bytes(value).decode("utf-8", "replace")
        elif field in (2, 7) and wire in (2, 5):
            floats.append(value)
        elif field in (5, 10) and wire == 2:
            _tensor_bad(value, "constant", out)
        elif field in (6, 11) and wire == 2:
            _graph_bad(value, out)
        elif field in (22, 23) and wire == 2:
            _sparse_bad(value, "sparse constant", out)
    values = _floats(floats, "<f4")
    if values.size and not np.isfinite(values).all():
        out.append(f"attribute {name!r}")


def check_finite_onnx(data: bytes, where) -> None:
    """``ModelError`` unless every floating-point tensor of the ONNX model in ``data`` (the
    graph's initializers, constants and float attributes, in subgraphs and functions too) is
    finite and stored inside the file.  Reads the protobuf directly: needs neither the onnx
    package nor torch."""
    bad: list = []
    try:
        for field, wire, value in _fields(memoryview(data)):
            if wire != 2:
                continue
            if field == 7:
                _graph_bad(value, bad)
            elif field == 20:
                for f, w, v in _fields(value):
                    if f in (1, 2) and w == 2:
                        _graph_bad(v, bad)
            elif field == 25:
                for f, w, v in _fields(value):
                    if f == 7 and w == 2:
                        _node_bad(v, bad)
    except (ValueError, UnicodeDecodeError) as e:
        raise ModelError(f"{where}: not a readable ONNX model ({e}); truncated or foreign file? "
                         "Re-export it from its checkpoint") from None
    if bad:
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        raise ModelError(f"{where}: the model's weights are not all finite: NaN or Inf in {', '.join(bad[:3])}{more}; "
                         "a diverged run or a damaged file cannot play: export an earlier checkpoint or retrain")


def _session(data: bytes, path, threads: int):
    """An onnxruntime session of the model bytes ``data`` (read from ``path``), tuned for one
    decision at a time; ``ModelError`` if onnxruntime refuses the graph."""
    import onnxruntime as ort  # lazy: onnxruntime, the optional runtime extra

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    if threads == 1:
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(data, sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types for corrupt graphs
        raise ModelError(f"{path}: onnxruntime cannot load the model ({str(e).strip()[:300]})") from None


#: (resolved path, size, mtime_ns, threads) -> (session, meta); sessions are thread-safe and read-only.
#: Bounded in bytes (a session holds about twice its file): past it the oldest sessions are dropped
#: (the bots that hold them keep them)
SESSIONS_MB = 512
_SESSIONS = ByteCache(SESSIONS_MB)


def load_model(path, threads: int = 1):
    """``(onnxruntime.InferenceSession, sidecar dict)`` for an exported model (cached)."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError:
        raise ModelError(f"{path}: model file not found") from None
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, threads)
    hit = _SESSIONS.get(key)
    if hit is not None:
        return hit
    meta, data = verify_model(path)
    sess = _session(data, path, threads)
    inputs = {i.name: i for i in sess.get_inputs()}
    outputs = {o.name for o in sess.get_outputs()}
    if set(inputs) not in ({"obs", "mask"}, {"obs", "mask", "prior"}) or not {"logits", "value"} <= outputs:
        raise ModelError(f"{path}: expected inputs obs, mask (and optionally prior) and outputs logits, value; "
                         f"got inputs {sorted(inputs)} and outputs {sorted(outputs)}")
    learning = _learning(meta, path)
    if inputs["obs"].shape[-1] != learning.obs_size or inputs["mask"].shape[-1] != learning.num_actions:
        raise ModelError(f"{path}: input shapes {inputs['obs'].shape} and {inputs['mask'].shape} do not fit "
                         f"observations of {learning.obs_size} and masks of {learning.num_actions}")
    if "prior" in inputs:
        if inputs["prior"].shape[-1] != learning.prior_size:
            raise ModelError(f"{path}: the prior input has shape {inputs['prior'].shape}, "
                             f"expected [N, {learning.prior_size}]")
        if meta.get("prior_version") != learning.prior_version:
            raise ModelError(f"{path}: the model reads heuristic prior {meta.get('prior_version')!r}, but this "
                             f"cavallo-env computes {learning.prior_version!r}; re-export it or install the "
                             "matching version")
    _SESSIONS.put(key, (sess, meta), 2 * st.st_size)
    return sess, meta


class PolicyBot(Bot):
    """An exported policy playing from views of its game (see the module doc)."""

    #: ``choose`` checks the whole view (``checked_view``): a server need not check it again
    validates_views = True

    def __init__(self, path, seed=None, temperature: float = 0.0, threads: int = 1, name: str | None = None,
                 endgame: bool = True, search: int = 0):
        super().__init__(seed)
        if isinstance(search, bool) or not isinstance(search, int) or search < 0:
            raise BotSpecError(f"policy search must be an ismcts iteration count >= 0 (0: none), got {search!r}")
        if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature >= 0):
            raise BotSpecError(f"policy temperature must be a finite number >= 0, got {temperature!r}")
        if not (isinstance(threads, int) and 1 <= threads <= 64):
            raise BotSpecError(f"policy threads must be an int in 1..64, got {threads!r}")
        self.path = Path(path)
        self.seed = seed
        self.temperature = float(temperature)
        #: play the exact endgame where the game has one (``Learning.solvable``: Scopa's last round)
        self.endgame = bool(endgame)
        self.session, self.meta = load_model(self.path, threads)
        self.learning = _learning(self.meta, self.path)
        #: the game this model plays (its views only)
        self.game = self.learning.game
        self.name = name or f"policy:{self.path}"
        #: ``ismcts:<search>`` playing the decisions the game hands to a search (``Learning.searched``)
        self.search = None
        if search:
            if not self.learning.searches:
                raise BotSpecError(f"{self.name}: @search is not measured to help {self.game}; "
                                   "only Scopa's model takes it (policy:scopa@search=1000)")
            self.search = make(f"ismcts:{search}", seed=seed, game=self.game)
        self._outputs = ["logits"]
        #: whether the model reads the heuristic prior (an extra ``prior`` input)
        self.uses_prior = any(i.name == "prior" for i in self.session.get_inputs())

    # -- model ---------------------------------------------------------------
    def _feeds(self, obs, mask, prior) -> dict:
        feeds = {"obs": obs, "mask": mask}
        if self.uses_prior:
            if prior is None:
                raise ValueError(f"{self.name} reads the heuristic prior: pass prior (Table.prior)")
            feeds["prior"] = prior
        return feeds

    def logits(self, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray | None = None) -> np.ndarray:
        """Masked logits for a batch: ``obs`` float32 [N, obs_size], ``mask`` float32 [N, num_actions]
        (and ``prior`` float32 [N, prior_size] when the model reads it)."""
        return self.session.run(self._outputs, self._feeds(obs, mask, prior))[0]

    def evaluate(self, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, value)`` for a batch, exactly the exported ``PolicyNet.forward``."""
        logits, value = self.session.run(["logits", "value"], self._feeds(obs, mask, prior))
        return logits, value

    @property
    def info(self) -> dict:
        """What a health check reports about the model."""
        m = self.meta
        return {
            "name": self.name,
            "path": str(self.path),
            "format": m.get("format"),
            "game": self.game,
            "obs_version": m.get("obs_version"),
            "action_version": m.get("action_version"),
            "prior_version": m.get("prior_version"),
            "onnx_sha256": m.get("onnx_sha256"),
            "model": m.get("model"),
            "source": m.get("source"),
            "evaluation": m.get("evaluation"),
            "temperature": self.temperature,
            "endgame": self.endgame,
            "search": self.search.iterations if self.search is not None else 0,
        }

    # -- playing ---------------------------------------------------------------
    def choose(self, view: dict) -> dict:
        game_of(view, self.game)  # a view of another game: ViewError naming both
        game, state, legal, by_move = checked_view(view, self.game)
        if self.search is not None and len(legal) > 1 and self.learning.searched(state):
            return self.search.choose(view)
        move = legal[0] if len(legal) == 1 else self._decide(state, view)
        if by_move is not None:
            return by_move[move]
        return game.move_to_dict(move, game.deck_of(view))

    def _decide(self, state, view) -> tuple:
        rng = random.Random(view_seed(self.seed, view)) if self.temperature > 0 else None
        run, outputs, feeds = self.session.run, self._outputs, {}

        def pick(obs, mask, prior, acts):
            feeds["obs"], feeds["mask"] = obs, mask
            if prior is not None:
                feeds["prior"] = prior
            logits = run(outputs, feeds)[0][0]
            return int(logits.argmax()) if rng is None else self._sample(logits, acts, rng)

        return decide_move(self.learning.table(state), pick, self.uses_prior, self.learning, self.endgame)

    def _sample(self, logits, acts, rng) -> int:
        vals = [float(logits[a]) / self.temperature for a in acts]
        top = max(vals)
        weights = [math.exp(v - top) for v in vals]
        r = rng.random() * sum(weights)
        for a, w in zip(acts, weights):
            r -= w
            if r < 0:
                return a
        return acts[-1]


def _parse_options(parts: list[str], spec: str) -> dict:
    kwargs = {}
    for part in parts:
        k, sep, v = part.partition("=")
        k = k.strip().lower()
        if not sep or not k:
            raise BotSpecError(f"policy option {part!r} in {spec!r} must look like key=value (e.g. t=0.5)")
        try:
            if k in ("t", "temperature"):
                kwargs["temperature"] = float(v)
            elif k == "threads":
                kwargs["threads"] = int(v)
            elif k == "endgame":
                kwargs["endgame"] = _switch(v, k, spec)
            elif k == "search":
                kwargs["search"] = int(v)
            else:
                raise BotSpecError(f"unknown policy option {k!r} in {spec!r}; "
                                   "known: t (temperature), threads, endgame, search")
        except ValueError as e:
            if isinstance(e, BotSpecError):
                raise
            raise BotSpecError(f"policy option {k}={v!r} in {spec!r} is not a number") from None
    return kwargs


def _switch(v: str, k: str, spec: str) -> bool:
    v = v.strip().lower()
    if v in ("1", "on", "true", "yes"):
        return True
    if v in ("0", "off", "false", "no"):
        return False
    raise BotSpecError(f"policy option {k}={v!r} in {spec!r} must be 1 or 0 (on or off)")


class DefaultPolicy(PerGameBot):
    """``policy:default``: the shipped model of the view's game, each loaded on first use."""

    validates_views = True

    def __init__(self, seed=None, name: str = "policy:default", **options):
        super().__init__(name, seed)
        self.options = options
        if not any(shipped_model(g).is_file() for g in SHIPPED):
            resolve(games.DEFAULT_GAME)  # no shipped model at all: say so now

    def for_game(self, game_name: str) -> PolicyBot:
        """The shipped model of ``game_name`` (``ModelError`` if this copy has none)."""
        bot = self._bots.get(game_name)
        if bot is None:
            bot = self._bots[game_name] = PolicyBot(resolve(game_name), seed=self.seed,
                                                    name=f"{self.name} ({game_name})", **self.options)
        return bot

    @property
    def info(self) -> dict:
        return {"name": self.name, "games": {g: shipped_model(g).name for g in SHIPPED},
                "loaded": {g: b.info for g, b in self._bots.items()}}


def resolve(arg: str) -> Path:
    """The model file a ``policy:`` argument names (a game's name = its shipped model)."""
    if arg in SHIPPED:
        path = shipped_model(arg)
        if not path.is_file():
            raise ModelError(
                f"policy:{arg}: the shipped {arg} model {path} is not installed in this copy of cavallo-env; "
                f"export one with `cavallo export checkpoints/{arg}.json --out {path.relative_to(MODELS_DIR.parent.parent)}`, "
                "or name an exported model with policy:<path>")
        return path
    return Path(os.path.expanduser(arg))


def from_spec(arg, seed=None, game: str | None = None):
    """Build from the text after ``policy:`` (see the module doc).  ``policy:default``
    with a ``game`` is that game's shipped model; without one it picks by the view."""
    if arg is None or not str(arg).strip():
        raise BotSpecError("policy needs a model: 'policy:default', 'policy:<game>' or 'policy:<path to .onnx>'")
    arg = str(arg).strip()
    spec = f"policy:{arg}"
    path_text, options = arg, []
    if "@" in arg and not Path(os.path.expanduser(arg)).exists():
        path_text, *options = arg.split("@")
    kwargs = _parse_options(options, spec)
    path_text = path_text.strip()
    name = f"policy:{path_text}"
    if kwargs.get("temperature"):
        name += f"@t={kwargs['temperature']:g}"
    if kwargs.get("endgame") is False:
        name += "@endgame=0"
    if kwargs.get("search"):
        name += f"@search={kwargs['search']}"
    if path_text == "default":
        if game is None:
            if kwargs.get("search"):
                raise BotSpecError(f"{spec}: @search is for one game's model (policy:scopa@search=1000), "
                                   "not policy:default")
            return DefaultPolicy(seed=seed, name=name, **kwargs)
        path_text = game
    bot = PolicyBot(resolve(path_text), seed=seed, name=name, **kwargs)
    if game is not None and bot.game != game:
        raise BotSpecError(f"{name} plays {bot.game}, not {game}")
    return bot


def add_evaluation(model_path, results: dict) -> None:
    """Merge evaluation ``results`` into the sidecar of an exported model."""
    meta_path = sidecar_path(model_path)
    try:
        meta = json.loads(Path(meta_path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ModelError(f"{meta_path}: cannot read the sidecar ({e})") from None
    ev = meta.get("evaluation") or {}
    ev.update(results)
    meta["evaluation"] = ev
    _write_sidecar(Path(meta_path), meta)
