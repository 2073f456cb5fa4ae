"""Ari Express (アリ急行) routes: completion, the exact longest-run score, random networks.

The table's network is an undirected graph on numbered nodes: the 8 nests and the squares
(ダイスマス) of every tape. A *route* of a colour is a simple path from one of its nests to
the other whose inner nodes are all squares (never a nest); it is *complete* when every
one of those squares holds a worker. A seat's *run* on a route is a stretch of consecutive
squares of the route that all hold that seat's workers.

The score of a seat for a colour is the longest run over all complete routes. Listing
the routes is hopeless on a big table (their number grows exponentially with the
junctions), so ``best_runs`` finds the maximum without listing them:

1. Only fully occupied routes count, so the search runs on the graph H of the two nests
   and the occupied squares. A node lies on some simple nest-to-nest path of H exactly
   when it lies in the biconnected block of H + (virtual edge nest1-nest2) that holds that
   edge (a block with 3 or more nodes puts any two of its edges on a common cycle), so one
   Tarjan pass drops every dead end, loose tape end and side pocket.
2. A run of seat s is a simple path P of s's squares; it lies on a complete route exactly
   when H minus P's inner squares holds two vertex-disjoint paths joining the two nests to
   P's two ends (either way round: a route may cross P in either direction). That is a
   maximum flow of 2 with unit vertex capacities, two breadth-first augmentations. A seat's
   squares form short chains (its workers are scattered among the others'), so its
   candidate paths are few; they are grown from each square and tested only when longer
   than the best run found so far. The seat's score is the longest P that passes.
3. When one seat owns so much of a mesh that it has more than ``MAX_CANDIDATES``
   candidate paths, ``best_runs_dp`` answers instead: in what is left after step 1 every
   node other than the two nests and the junctions (degree 3 or more) has degree 2, so it
   sits on a *chain* between two branch nodes, and a simple route either runs through a
   whole chain or avoids it. The chains become weighted edges of a small graph on the
   branch nodes; per chain and seat we keep the run at its start, the run at its end, its
   longest inner run and whether the seat owns all of it. ``f(v, allowed)`` = per seat,
   over every simple path from branch node v to the target nest through the branch nodes
   ``allowed``: (A) the longest run that starts right after v, and (B) the longest run
   anywhere after v. A path through chain c to w continues with f(w, allowed - w): the
   run through w is c's end run + 1 + A(w) when the seat owns w, else the runs are c's own
   and B(w). Because max(t + a, b) over paths is max(t + max a, max b), A and B may come
   from different paths and each seat still gets its best single route. ``allowed`` is
   cut down to the nodes on some simple w-to-target path inside it (step 1 again, on the
   small graph) before the memo is consulted. This search is exponential in the branch
   nodes in the worst case (the problem contains longest path), which is why it is only
   the fallback.

Exactness: step 1 only removes squares that lie on no complete route; in step 2 every run
on a complete route is a candidate P that passes, and every P that passes is a run on the
route the flow builds. In step 3 every simple complete route is a sequence of whole
chains between distinct branch nodes and the recurrence covers all of them. Both give the
maximum brute-force enumeration finds (tests/engines/test_ariexpress.py checks it on
hundreds of random networks).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engines.core import rng_below, rng_seed

__all__ = ["complete", "best_runs", "best_runs_dp", "useful", "routes", "random_network", "Network"]

#: Nodes 0..7 are the nests (colour c: nodes 2c and 2c+1); squares follow.
NESTS = 8


def complete(adj: Sequence[Sequence[int]], owner: Sequence[int], a: int, b: int) -> bool:
    """Whether some route from nest ``a`` to nest ``b`` has a worker on every square."""
    seen = {a}
    todo = [a]
    while todo:
        u = todo.pop()
        for w in adj[u]:
            if w == b:
                return True
            if w in seen or w < NESTS or owner[w] < 0:
                continue
            seen.add(w)
            todo.append(w)
    return False


def _block(nbrs: Callable[[int], Iterable[int]], a: int, b: int) -> set[int]:
    """The nodes of the biconnected block of G + edge(a, b) that holds that edge.

    ``nbrs(u)`` lists u's neighbours in G (the virtual edge is added here). The result
    always holds a and b; it holds other nodes exactly when they lie on a simple a-b path.
    """
    def around(u: int) -> list[int]:
        out = list(nbrs(u))
        if u == a and b not in out:
            out.append(b)
        elif u == b and a not in out:
            out.append(a)
        return out

    disc = {a: 0}
    low = {a: 0}
    clock = 1
    edges: list[tuple[int, int]] = []
    stack = [(a, -1, iter(around(a)))]
    while stack:
        u, parent, it = stack[-1]
        for w in it:
            if w == parent:
                continue
            if w not in disc:
                disc[w] = low[w] = clock
                clock += 1
                edges.append((u, w))
                stack.append((w, u, iter(around(w))))
                break
            if disc[w] < disc[u]:
                edges.append((u, w))
                if disc[w] < low[u]:
                    low[u] = disc[w]
        else:
            stack.pop()
            if not stack:
                break
            p = stack[-1][0]
            if low[u] < low[p]:
                low[p] = low[u]
            if low[u] >= disc[p]:
                block = set()
                while True:
                    x, y = edges.pop()
                    block.add(x)
                    block.add(y)
                    if (x, y) == (p, u):
                        break
                if a in block and b in block:
                    return block
    return {a, b}


def useful(adj: Sequence[Sequence[int]], owner: Sequence[int], a: int, b: int) -> set[int]:
    """The squares that lie on some complete route from nest ``a`` to nest ``b`` (empty
    when the colour is not complete)."""
    if not complete(adj, owner, a, b):
        return set()

    def nbrs(u: int) -> Iterable[int]:
        if u == a or u == b:
            return [w for w in adj[u] if w >= NESTS and owner[w] >= 0]
        return [w for w in adj[u] if w == a or w == b or (w >= NESTS and owner[w] >= 0)]

    return _block(nbrs, a, b) - {a, b}


def _chains(adj: Sequence[Sequence[int]], nodes: set[int], a: int, b: int):
    """Branch nodes (a, b first) and, per branch node, its chains: (branch w, inner nodes)."""
    inside = nodes | {a, b}
    deg = {u: sum(1 for w in adj[u] if w in inside) for u in inside}
    branch = [a, b] + sorted(u for u in nodes if deg[u] >= 3)
    index = {u: i for i, u in enumerate(branch)}
    out: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in branch]
    for i, u in enumerate(branch):
        for first in adj[u]:
            if first not in inside:
                continue
            inner: list[int] = []
            prev, cur = u, first
            while cur not in index:
                inner.append(cur)
                nxt = next(w for w in adj[cur] if w in inside and w != prev)
                prev, cur = cur, nxt
            out[i].append((index[cur], tuple(inner)))
    return branch, out


#: Candidate runs one seat may try before ``best_runs`` leaves that colour to the search
#: over routes (a seat owning a whole mesh of squares).
MAX_CANDIDATES = 20_000


def best_runs(
    adj: Sequence[Sequence[int]], owner: Sequence[int], a: int, b: int, seats: int,
    tick: Callable[[], None] | None = None,
) -> tuple[int, ...] | None:
    """Per seat, the longest run of its own consecutive workers on any complete simple
    route from nest ``a`` to nest ``b``; None when no route is complete.

    A run is a simple path P of the seat's squares that some complete route holds: P plus
    two disjoint paths of occupied squares joining its two ends to the two nests. Each
    seat's candidate paths (few: a seat's squares form short chains) are tried longest
    first against that two-path test, a maximum flow of 2 (see the module docstring).
    When a seat has more than ``MAX_CANDIDATES`` candidates, the search over routes
    (``best_runs_dp``) answers instead. ``tick`` is called now and then (a benchmark's
    time budget raises from it)."""
    nodes = useful(adj, owner, a, b)
    if not nodes:
        return None
    out = []
    for s in range(seats):
        got = _seat_best(adj, owner, nodes, a, b, s, tick)
        if got is None:
            return best_runs_dp(adj, owner, a, b, seats, tick)
        out.append(got)
    return tuple(out)


def _seat_best(adj: Sequence[Sequence[int]], owner: Sequence[int], nodes: set[int], a: int, b: int, s: int,
               tick: Callable[[], None] | None) -> int | None:
    """Seat ``s``'s longest run (``best_runs``); None when it has too many candidates."""
    mine = {u for u in nodes if owner[u] == s}
    if not mine:
        return 0
    inside = nodes | {a, b}
    best = 0
    tried = 0
    path: list[int] = []
    on_path: set[int] = set()

    def grow(u: int) -> bool:
        """Every simple path of the seat's squares that starts with ``path`` (ending at u);
        False when the candidates ran out."""
        nonlocal best, tried
        tried += 1
        if tried > MAX_CANDIDATES:
            return False
        if tick is not None and tried % 200 == 0:
            tick()
        if len(path) > best and path[0] <= u and _linked(adj, inside, a, b, path[0], u, on_path):
            best = len(path)
        for w in adj[u]:
            if w in mine and w not in on_path:
                path.append(w)
                on_path.add(w)
                ok = grow(w)
                path.pop()
                on_path.discard(w)
                if not ok:
                    return False
        return True

    for start in sorted(mine):
        path.append(start)
        on_path.add(start)
        ok = grow(start)
        path.pop()
        on_path.discard(start)
        if not ok:
            return None
    return best


def _linked(adj: Sequence[Sequence[int]], inside: set[int], a: int, b: int, x: int, y: int, run: set[int]) -> bool:
    """Whether two vertex-disjoint paths inside ``inside`` join nests {a, b} to the run's
    ends {x, y} while avoiding the run's other squares: a maximum flow of 2 with unit
    vertex capacities (x = y, a run of one square, takes both paths)."""
    # Node u splits into 2u (in) and 2u + 1 (out); S and T are -1 and -2.
    cap: dict[int, dict[int, int]] = {}

    def arc(p: int, q: int, c: int) -> None:
        cap.setdefault(p, {})[q] = cap.get(p, {}).get(q, 0) + c
        cap.setdefault(q, {}).setdefault(p, 0)

    source, sink = -1, -2
    for u in inside:
        if u in run and u not in (x, y):
            continue
        arc(2 * u, 2 * u + 1, 2 if u == x == y else 1)
        for w in adj[u]:
            if w in inside and (w not in run or w in (x, y)) and w not in (a, b) and u != w:
                arc(2 * u + 1, 2 * w, 1)
    arc(source, 2 * a, 1)
    arc(source, 2 * b, 1)
    arc(2 * x + 1, sink, 2 if x == y else 1)
    if y != x:
        arc(2 * y + 1, sink, 1)
    for _ in range(2):
        parent = {source: source}
        todo = [source]
        while todo and sink not in parent:
            nxt = []
            for p in todo:
                for q, c in cap[p].items():
                    if c > 0 and q not in parent:
                        parent[q] = p
                        nxt.append(q)
            todo = nxt
        if sink not in parent:
            return False
        q = sink
        while q != source:
            p = parent[q]
            cap[p][q] -= 1
            cap[q][p] += 1
            q = p
    return True


def best_runs_dp(
    adj: Sequence[Sequence[int]], owner: Sequence[int], a: int, b: int, seats: int,
    tick: Callable[[], None] | None = None,
) -> tuple[int, ...] | None:
    """Per seat, the longest run of its own consecutive workers on any complete simple
    route from nest ``a`` to nest ``b``; None when no route is complete (see the module
    docstring for the method and why it is exact). ``tick`` is called every 1,000 search
    states (a benchmark's time budget raises from it)."""
    nodes = useful(adj, owner, a, b)
    if not nodes and not complete(adj, owner, a, b):
        return None
    branch, out = _chains(adj, nodes, a, b)
    count = len(branch)
    target = 1
    owners = [owner[u] if i >= 2 else -1 for i, u in enumerate(branch)]
    seat_range = range(seats)
    # per directed chain: (w, lead, trail, longest, full) with per-seat tuples
    edges: list[list[tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[bool, ...]]]] = []
    nmask = [0] * count
    for i in range(count):
        row = []
        for w, inner in out[i]:
            nmask[i] |= 1 << w
            seq = [owner[x] for x in inner]
            lead, trail, longest, full = [], [], [], []
            for s in seat_range:
                run = best = 0
                first = None
                for o in seq:
                    if o == s:
                        run += 1
                        if run > best:
                            best = run
                    else:
                        if first is None:
                            first = run
                        run = 0
                lead.append(len(seq) if first is None else first)
                trail.append(run)
                longest.append(best)
                full.append(first is None)
            row.append((w, tuple(lead), tuple(trail), tuple(longest), tuple(full)))
        edges.append(row)

    canon_memo: dict[tuple[int, int], int | None] = {}

    def canon(v: int, allowed: int) -> int | None:
        """``allowed`` cut to the nodes on a simple v-target path inside it; None: no path."""
        key = (v, allowed)
        if key in canon_memo:
            return canon_memo[key]
        keep = allowed | (1 << v) | (1 << target)

        def nbrs(u: int) -> Iterable[int]:
            m = nmask[u] & keep
            while m:
                low = m & -m
                yield low.bit_length() - 1
                m ^= low

        block = _block(nbrs, v, target)
        if len(block) == 2 and not nmask[v] >> target & 1:
            result = None
        else:
            result = 0
            for u in block:
                result |= 1 << u
            result &= allowed
        canon_memo[key] = result
        return result

    memo: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]] | None] = {}

    def f(v: int, allowed: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        key = (v, allowed)
        if key in memo:
            return memo[key]
        if tick is not None and len(memo) % 1000 == 999:
            tick()
        best_a = [-1] * seats
        best_b = [-1] * seats
        found = False
        for w, lead, trail, longest, full in edges[v]:
            if w == target:
                found = True
                for s in seat_range:
                    if lead[s] > best_a[s]:
                        best_a[s] = lead[s]
                    if longest[s] > best_b[s]:
                        best_b[s] = longest[s]
                continue
            if not allowed >> w & 1:
                continue
            rest = canon(w, allowed & ~(1 << w))
            if rest is None:
                continue
            sub = f(w, rest)
            if sub is None:
                continue
            found = True
            sub_a, sub_b = sub
            ow = owners[w]
            for s in seat_range:
                if ow == s:
                    through = trail[s] + 1 + sub_a[s]
                    run_a = through if full[s] else lead[s]
                    run_b = max(longest[s], sub_b[s], through)
                else:
                    run_a = lead[s]
                    run_b = longest[s] if longest[s] > sub_b[s] else sub_b[s]
                if run_a > best_a[s]:
                    best_a[s] = run_a
                if run_b > best_b[s]:
                    best_b[s] = run_b
        result = (tuple(best_a), tuple(best_b)) if found else None
        memo[key] = result
        return result

    start = canon(0, sum(1 << i for i in range(2, count)))
    result = f(0, start) if start is not None else None
    if result is None:
        return None
    return tuple(max(0, x) for x in result[1])


def routes(
    adj: Sequence[Sequence[int]], owner: Sequence[int], a: int, b: int, limit: int = 8
) -> list[list[int]]:
    """Up to ``limit`` complete routes from ``a`` to ``b`` (their squares in order),
    found depth first among the squares that lie on some complete route."""
    nodes = useful(adj, owner, a, b)
    found: list[list[int]] = []
    path: list[int] = []
    on_path: set[int] = set()

    def walk(u: int) -> None:
        for w in sorted(adj[u]):
            if len(found) >= limit:
                return
            if w == b:
                found.append(list(path))
            elif w in nodes and w not in on_path:
                path.append(w)
                on_path.add(w)
                walk(w)
                path.pop()
                on_path.discard(w)

    walk(a)
    return found


class Network:
    """A random table for benchmarks and tests: ``adj`` over nests and squares, ``owner``
    per node (-1: a nest or an empty square)."""

    def __init__(self, adj: list[list[int]], owner: list[int], junctions: int) -> None:
        self.adj = adj
        self.owner = owner
        self.junctions = junctions

    @property
    def squares(self) -> int:
        return len(self.adj) - NESTS


def random_network(seed: int, squares: int, junctions: int, seats: int = 4, occupied: float = 1.0) -> Network:
    """A seeded random table of ``squares`` squares on tapes of 2 or more squares: each of
    the 8 nests takes one tape end, ``junctions`` tape ends join squares of earlier tapes
    (a mesh, so that many routes run through the junctions). Each square is occupied with
    chance ``occupied`` (in steps of 0.001) by a random one of ``seats`` seats."""
    rng = rng_seed(seed, 11)

    def below(n: int) -> int:
        nonlocal rng
        k, rng = rng_below(rng, n)
        return k

    tapes = max(1, min(squares // 2, (junctions + NESTS + 1) // 2))
    lengths = [2] * tapes
    for _ in range(squares - 2 * tapes):
        lengths[below(tapes)] += 1
    ends = 2 * tapes
    nest_at = {0, 1}
    while len(nest_at) < min(ends, NESTS):
        nest_at.add(2 + below(ends - 2))
    nests = list(range(NESTS))
    for i in range(NESTS - 1, 0, -1):
        j = below(i + 1)
        nests[i], nests[j] = nests[j], nests[i]
    adj: list[list[int]] = [[] for _ in range(NESTS)]
    owner: list[int] = [-1] * NESTS
    joined = 0
    end_number = 0
    for length in lengths:
        first = len(adj)
        for k in range(length):
            adj.append([])
            owner.append(below(seats) if below(1000) < int(occupied * 1000) else -1)
            if k:
                adj[first + k].append(first + k - 1)
                adj[first + k - 1].append(first + k)
        taken: list[int] = []
        for end in (first, first + length - 1):
            if end_number in nest_at or first == NESTS:
                x = nests[len(nest_at & set(range(end_number))) % NESTS] if end_number in nest_at else below(NESTS)
            else:
                x = NESTS + below(first - NESTS)
                joined += 1
            end_number += 1
            if x not in taken:
                adj[end].append(x)
                adj[x].append(end)
                taken.append(x)
    return Network(adj, owner, joined)

