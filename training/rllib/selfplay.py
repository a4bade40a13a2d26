"""Self-play on RLlib: who plays whom in each episode, for two seats or four in two teams.

RLlib's self-play example (``ray.rllib.examples.multi_agent.self_play_with_open_spiel``)
assumes two agents, one per module.  Here a *team* is the unit: both seats of
a team (Cavalloìcera: 0+2 against 1+3; Briscola and Scopa: one seat each)
map to the same module, and the observation is seat-relative, so one module
plays either seat of either team.

Modules (``module_ids``): ``main``, the one trained, and ``snapshot_0`` ..
``snapshot_{K-1}``, frozen copies of ``main``.  The snapshot slots exist from
the start, holding ``main``'s initial weights; every ``league.snapshot_every``
iterations the next slot (round robin) takes ``main``'s current weights.  The
set of modules never changes, so an episode in flight never loses its module.

Each episode gets a *plan* when RLlib creates it (``on_episode_created``,
before the env's reset): its kind is drawn from ``league.mix`` -- ``self``
(main against main, both teams trained), ``snapshots`` (main against a
snapshot slot drawn uniformly), ``greedy`` or ``heuristic`` (main against a
fixed bot of the project, played inside the env: ``training.rllib.env``) --
and the learner's team at random.  The plan goes into
``episode.custom_data["plan"]``, where ``agent_to_module`` reads it, and into
the sub-env, which takes it at its reset.  ``on_episode_end`` logs the
learner's result per kind and the episode's decisions.
"""

from __future__ import annotations

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback

from .env import BOT_KINDS, SELF_PLAN, adapter_of

MAIN = "main"
KINDS = ("self", "snapshots", "greedy", "heuristic")


def module_ids(slots: int) -> list[str]:
    return [MAIN] + [f"snapshot_{k}" for k in range(slots)]


def seat_of(agent_id) -> int:
    """``player_3`` -> 3."""
    return int(str(agent_id).rsplit("_", 1)[1])


def agent_to_module(agent_id, episode, **kwargs) -> str:
    """The module of an agent: ``main`` for the learner's team (both teams in ``self``
    episodes), the episode's snapshot for the other team (teams are seat % 2)."""
    plan = _plan(episode)
    if plan["kind"] != "snapshots" or seat_of(agent_id) % 2 == plan["learner_team"]:
        return MAIN
    return plan["module"]


def _plan(episode) -> dict:
    """The episode's plan; the self plan while RLlib builds an episode chunk (``cut()`` calls the
    mapping before the chunk has its ``custom_data``, and then keeps the modules already mapped)."""
    try:
        return episode.custom_data.get("plan", SELF_PLAN)
    except AttributeError:
        return SELF_PLAN


def draw_plan(league: dict, rng: np.random.Generator) -> dict:
    """An episode's plan from ``league`` (``mix``: kind -> share; ``slots``: snapshot slots)."""
    mix = {k: float(v) for k, v in league["mix"].items() if float(v) > 0}
    kinds = list(mix)
    p = np.array([mix[k] for k in kinds])
    kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
    plan = {"kind": kind, "learner_team": int(rng.integers(2)), "module": MAIN}
    if kind == "snapshots":
        plan["module"] = f"snapshot_{int(rng.integers(league['slots']))}"
    return plan


def score_of(reward: float) -> float:
    return 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0


class SelfPlayLeague(RLlibCallback):
    """The league callback (see the module doc)."""

    def __init__(self):
        super().__init__()
        self._rng = None
        self.snapshots_taken = 0

    # -- env runners: plans and results ---------------------------------------------
    def on_episode_created(self, *, episode, env_runner=None, env=None, env_index=0, **kwargs) -> None:
        league = env_runner.config.env_config["league"]
        if self._rng is None:
            seed = int(env_runner.config.env_config.get("seed", 0))
            self._rng = np.random.default_rng([seed, int(getattr(env_runner, "worker_index", 0)), 7])
        plan = draw_plan(league, self._rng)
        episode.custom_data["plan"] = plan
        adapter = adapter_of(env, env_index)
        if adapter is not None:
            adapter.set_plan(plan)

    def on_episode_end(self, *, episode, env_runner=None, metrics_logger=None, env=None, env_index=0,
                       **kwargs) -> None:
        plan = _plan(episode)
        team = plan["learner_team"]
        adapter = adapter_of(env, env_index)
        if metrics_logger is None:
            return
        ret = None
        if adapter is not None and adapter.engine_state().done:
            # the whole game's point difference for the learner's team, as the project's trainer logs it
            # (the episode's chunks would give only the last fragment's rewards, scaled)
            g = adapter.game
            seat = next(s for s in range(g.num_seats) if g.team_of(s) == team)
            ret = g.returns(adapter.engine_state(), "points")[seat]
        if ret is not None and plan["kind"] != "self":
            metrics_logger.log_value(f"score_vs_{plan['kind']}", score_of(ret), reduce="mean", window=400)
            metrics_logger.log_value(f"diff_vs_{plan['kind']}", float(ret), reduce="mean", window=400)
        if adapter is not None:
            metrics_logger.log_value("decisions", adapter.decisions, reduce="sum")
            metrics_logger.log_value("bot_decisions", adapter.bot_decisions, reduce="sum")

    # -- the algorithm: snapshots ------------------------------------------------------
    def on_algorithm_init(self, *, algorithm, **kwargs) -> None:
        """Every snapshot slot starts as ``main``'s initial weights."""
        league = algorithm.config.env_config["league"]
        set_snapshots(algorithm, [f"snapshot_{k}" for k in range(league["slots"])])

    def on_train_result(self, *, algorithm, result, **kwargs) -> None:
        league = algorithm.config.env_config["league"]
        if league.get("mix", {}).get("snapshots", 0) and algorithm.iteration % league["snapshot_every"] == 0:
            slot = f"snapshot_{self.snapshots_taken % league['slots']}"
            set_snapshots(algorithm, [slot])
            self.snapshots_taken += 1
        result["league_snapshots_taken"] = self.snapshots_taken


def main_weights(algorithm) -> dict:
    """``main``'s current weights (numpy state dict), from the learner."""
    return algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]


def set_snapshots(algorithm, slots: list[str]) -> None:
    """Copy ``main``'s current weights into the snapshot ``slots``, on the learner and on every
    env runner (RLlib's weight sync only carries the modules it trains)."""
    if not slots:
        return
    w = main_weights(algorithm)
    algorithm.learner_group.set_weights({slot: w for slot in slots})

    def put(env_runner, w=w, slots=tuple(slots)):
        if env_runner.module is not None:
            for slot in slots:
                env_runner.module[slot].set_state(w)

    algorithm.env_runner_group.foreach_env_runner(put, local_env_runner=True)


__all__ = ["MAIN", "KINDS", "BOT_KINDS", "module_ids", "agent_to_module", "draw_plan", "SelfPlayLeague",
           "set_snapshots", "main_weights", "seat_of"]
