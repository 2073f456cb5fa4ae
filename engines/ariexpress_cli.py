"""``dicetable ariexpress-bench``: the time the exact Ari Express scoring takes on seeded
random networks as they grow (``engines.ariexpress_routes``)."""
from __future__ import annotations

import platform
import statistics
from typing import Any

from engines import ariexpress_routes as routes
from engines.core import Command

#: (squares, junctions) of the networks timed, smallest first.
SIZES = [(25, 4), (50, 8), (100, 15), (200, 30), (300, 45), (400, 60)]


class _OverBudget(Exception):
    pass


def run_bench(args: Any, out: Any, clock: Any) -> int:
    """``dicetable ariexpress-bench``: scoring time on seeded random networks as they grow."""
    runs_n = max(1, int(args.runs))
    out.write(f"Ari Express exact scoring: the longest runs of {args.seats} seats on 4 colours, every square "
              f"occupied, {runs_n} seeded random networks per size (budget {args.budget:g} s per network)\n")
    out.write(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    out.write(f"{'squares':>8} {'junctions':>9} {'median ms':>10} {'max ms':>10}  over budget\n")
    for n_squares, n_junctions in SIZES:
        if n_squares > args.max_squares:
            break
        times: list[float] = []
        over = 0
        for seed in range(runs_n):
            net = routes.random_network(seed, n_squares, n_junctions, seats=args.seats)
            start = clock()

            def tick() -> None:
                if clock() - start > args.budget:
                    raise _OverBudget

            try:
                for c in range(4):
                    routes.best_runs(net.adj, net.owner, 2 * c, 2 * c + 1, args.seats, tick)
            except _OverBudget:
                over += 1
                continue
            times.append((clock() - start) * 1000)
        median = f"{statistics.median(times):10.1f}" if times else f"{'-':>10}"
        worst = f"{max(times):10.1f}" if times else f"{'-':>10}"
        out.write(f"{n_squares:>8} {net.junctions:>9} {median} {worst}  {over} of {runs_n}\n")
        out.flush()
    return 0


COMMANDS = (
    Command(
        name="ariexpress-bench",
        help="time the exact Ari Express scoring on seeded random networks as they grow",
        description="Score 4 colours (every square occupied by random seats) on seeded random networks "
        "of 25 to 400 squares with as many junctions in proportion, and print the median and the "
        "slowest time per size, with the machine; a network that takes longer than the budget is counted, not timed.",
        arguments=(
            (("--runs",), {"type": int, "default": 5, "help": "networks per size (default 5)"}),
            (("--seats",), {"type": int, "default": 4, "help": "seats owning the workers (default 4)"}),
            (("--max-squares",), {"type": int, "default": 400, "help": "stop after this size (default 400)"}),
            (("--budget",), {"type": float, "default": 10.0,
                             "help": "seconds one network may take before it counts as over budget (default 10)"}),
        ),
        run=run_bench,
    ),
)
