#!/usr/bin/env python3
"""Generates Sources/SfumatoFilters/Blur/MedianNetworks.swift: pruned min/max networks for the
5x5 and 7x7 medians of 8-bit tiles.

How the medians are computed (after Adams, "Fast median filters using separable sorting
networks", 2021):
  1. Each column of the window is sorted (a 5- or 7-sorter, shared by every window that
     contains the column; the Swift driver does this once per input column and output row).
  2. Four horizontally neighbouring outputs are done together.  The sorted columns that all four
     windows share are merged once (Batcher's odd-even merge), then the columns shared by each
     pair, then each window's own column: a merge tree whose inner nodes serve several outputs.
  3. Only the middle element of each window's merged list is wanted, so every exchange that
     cannot reach it is dropped (liveness), and every exchange whose order is already known
     from the sorted inputs and earlier exchanges is dropped or turned into a renaming.
A 7x7 block of four medians costs 786 lane-wise min/max operations (196.5 per output) after
step 1, against 2 x 99 per output for a general 25-input selection network at 5x5 and far more
at 7x7.  Each operation acts on 16 bytes: four pixels of four channels, which the driver lays
out so that the four outputs of a block are neighbours in every lane.

The network is checked here on random inputs, with many ties and without, against sorting.
Run:  python3 scripts/median-networks.py > Sources/SfumatoFilters/Blur/MedianNetworks.swift
      python3 scripts/median-networks.py --avx512 > Sources/SfumatoAVX512/MedianNetworks512.swift
"""
import random
import sys

SORTERS = {  # optimal sorting networks (Knuth, TAOCP 5.3.4), checked below by the 0-1 principle
    5: [(0, 3), (1, 4), (0, 2), (1, 3), (0, 1), (2, 4), (1, 2), (3, 4), (2, 3)],
    7: [(0, 6), (2, 3), (4, 5), (0, 2), (1, 4), (3, 6), (0, 1), (2, 5), (3, 4), (1, 2), (4, 6),
        (2, 3), (4, 5), (1, 2), (3, 4), (5, 6)],
}
BLOCK = 4  # outputs per block (neighbours): more shares nothing further at these sizes


def bits(x):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class Network:
    """Straight-line min/max code over SSA values, tracking which orderings are already known."""

    def __init__(self):
        self.ops = []      # ('in', v, rank, column) | ('min' | 'max', v, a, b)
        self.above = []    # above[v]: bitset of values known to be >= v
        self.below = []    # below[v]: bitset of values known to be <= v

    def _new(self):
        self.above.append(0)
        self.below.append(0)
        return len(self.above) - 1

    def input(self, rank, column):
        v = self._new()
        self.ops.append(('in', v, rank, column))
        return v

    def know(self, a, b):
        """Records a <= b, closed under transitivity."""
        lows, highs = self.below[a] | (1 << a), self.above[b] | (1 << b)
        for x in bits(lows):
            self.above[x] |= highs
        for y in bits(highs):
            self.below[y] |= lows

    def exchange(self, a, b):
        """(min, max) of a and b; free when their order is known."""
        if a is None or b is None:          # None stands for +infinity (padding)
            return (b, None) if a is None else (a, None)
        if (self.above[a] >> b) & 1:
            return a, b
        if (self.above[b] >> a) & 1:
            return b, a
        lo, hi = self._new(), self._new()
        self.ops += [('min', lo, a, b), ('max', hi, a, b)]
        # lo <= x when a <= x or b <= x; x <= lo when x <= a and x <= b (and the mirror for hi).
        self.above[lo] = self.above[a] | self.above[b] | (1 << a) | (1 << b)
        self.below[lo] = self.below[a] & self.below[b]
        self.below[hi] = self.below[a] | self.below[b] | (1 << a) | (1 << b)
        self.above[hi] = self.above[a] & self.above[b]
        for v in (lo, hi):
            for x in bits(self.below[v]):
                self.above[x] |= 1 << v
            for x in bits(self.above[v]):
                self.below[x] |= 1 << v
        self.know(lo, hi)
        return lo, hi

    def merge(self, first, second):
        """Batcher's odd-even merge of two sorted lists (padded to a power of two with +inf)."""
        if not first or not second:
            return first or second
        m = 1
        while m < max(len(first), len(second)):
            m *= 2
        wires = first + [None] * (m - len(first)) + second + [None] * (m - len(second))

        def odd_even(lo, n, r):
            step = 2 * r
            if step < n:
                odd_even(lo, n, step)
                odd_even(lo + r, n, step)
                for i in range(lo + r, lo + n - r, step):
                    wires[i], wires[i + r] = self.exchange(wires[i], wires[i + r])
            else:
                wires[lo], wires[lo + r] = self.exchange(wires[lo], wires[lo + r])
        odd_even(0, 2 * m, 1)
        return [w for w in wires if w is not None]

    def merge_all(self, lists):
        while len(lists) > 1:
            lists = [self.merge(lists[i], lists[i + 1]) for i in range(0, len(lists) - 1, 2)] + \
                    ([lists[-1]] if len(lists) % 2 else [])
        return lists[0] if lists else []


def block_medians(n):
    """The network for BLOCK neighbouring n x n medians from sorted columns; returns (ops, outputs)."""
    net = Network()
    columns = n + BLOCK - 1
    sorted_columns = [[net.input(rank, c) for rank in range(n)] for c in range(columns)]
    for col in sorted_columns:
        for lo, hi in zip(col, col[1:]):
            net.know(lo, hi)
    outputs = []

    def descend(first, last, parent_columns, parent):
        # Windows first...last-1; window t covers columns t ... t + n - 1.
        shared = set(range(last - 1, first + n))
        own = sorted(shared - parent_columns)
        merged = net.merge(parent, net.merge_all([sorted_columns[c] for c in own]))
        if last - first == 1:
            outputs.append(merged[n * n // 2])
            return
        middle = (first + last) // 2
        descend(first, middle, shared, merged)
        descend(middle, last, shared, merged)

    descend(0, BLOCK, set(), [])
    live, kept = set(outputs), []
    for op in reversed(net.ops):
        if op[1] in live:
            kept.append(op)
            if op[0] != 'in':
                live.update(op[2:])
    return kept[::-1], outputs


def check(n, ops, outputs, trials=20000):
    rng = random.Random(n)
    for trial in range(trials):
        levels = 3 if trial % 2 else 256     # many ties, then few
        window = [[rng.randrange(levels) for _ in range(n)] for _ in range(n + BLOCK - 1)]
        for col in window:
            col.sort()
        value = {}
        for op in ops:
            if op[0] == 'in':
                value[op[1]] = window[op[3]][op[2]]
            else:
                value[op[1]] = (min if op[0] == 'min' else max)(value[op[2]], value[op[3]])
        for t, out in enumerate(outputs):
            everything = sorted(v for col in window[t:t + n] for v in col)
            assert value[out] == everything[n * n // 2], (n, trial, t)


def check_sorter(n):
    for word in range(1 << n):
        v = [(word >> i) & 1 for i in range(n)]
        for a, b in SORTERS[n]:
            if v[a] > v[b]:
                v[a], v[b] = v[b], v[a]
        assert v == sorted(v), n


CHUNK = 64  # operations per generated function: small bodies compile fast and spill little


def swift(n, ops, outputs, wide=False):
    """Swift for one block network: the operations in order, cut into functions of CHUNK operations
    that read the sorted columns from the phase planes and pass other values through a slot array.
    `wide`: the AVX-512 form for Sources/SfumatoAVX512, the same operations on 64 bytes (four
    neighbouring blocks at once: the phase planes hold them one after the other), its slots 64
    bytes apart in raw memory (that module declares no types or generics)."""
    columns = n + BLOCK - 1
    compute = [op for op in ops if op[0] != 'in']
    inputs = {op[1]: (op[2], op[3]) for op in ops if op[0] == 'in'}
    chunks = [compute[i:i + CHUNK] for i in range(0, len(compute), CHUNK)]
    last_use = {}
    for k, chunk in enumerate(chunks):
        for op in chunk:
            for v in op[2:]:
                last_use[v] = k
    for v in outputs:
        last_use[v] = len(chunks)
    # Slots: inputs first; a value leaves a chunk through a slot freed after its last reading chunk.
    slot = {}
    free = []
    used = 0
    frees_after = {}
    for v, k in last_use.items():
        frees_after.setdefault(k, []).append(v)
    for k, chunk in enumerate(chunks):
        for op in chunk:
            v = op[1]
            if last_use.get(v, k) > k:
                if free:
                    slot[v] = free.pop()
                else:
                    slot[v] = used
                    used += 1
        for v in frees_after.get(k, []):
            if v in slot and v not in outputs and v not in inputs:
                free.append(slot[v])
    name = f"_medians{n}x{n}"
    if wide:
        return swift_wide(n, name, chunks, inputs, slot, used, outputs, len(compute)), ""
    lines = [
        f"/// The medians of {BLOCK} neighbouring {n}x{n} windows from their {columns} sorted columns: rank `r`",
        "/// (0 = smallest) of column `c` is the 16 bytes at `planes + (4 * r + c % 4) * planeBytes + 4 * (c / 4)`",
        f"/// (MedianBlocks.swift's phase planes). Leaves the median of window `t` (columns `t ... t + {n - 1}`)",
        f"/// in `slots[{name}Outputs[t]]`; `slots` holds at least `{name}Slots` vectors. {len(compute)} lane-wise",
        "/// min/max operations.",
        f"func {name}(_ planes: UnsafeRawPointer, _ planeBytes: Int, _ slots: UnsafeMutablePointer<SIMD16<UInt8>>) {{",
    ]
    lines += [f"    {name}Part{k}(planes, planeBytes, slots)" for k in range(len(chunks))]
    lines += ["}", "", f"/// Vectors `{name}` needs in its slot array.", f"let {name}Slots = {used}",
              f"/// Where `{name}` leaves each window's median.",
              f"let {name}Outputs = ({', '.join(str(slot[v]) for v in outputs)})"]
    lines += chunk_functions(name, chunks, inputs, slot, BASELINE)
    sorter = [f"/// Sorts `v[0 ..< {n}]` lane by lane ({len(SORTERS[n])} exchanges).", "@inline(__always)",
              f"func _sort{n}(_ v: UnsafeMutablePointer<SIMD16<UInt8>>) {{"]
    current = {i: f"a{i}" for i in range(n)}
    sorter += [f"    let a{i} = v[{i}]" for i in range(n)]
    fresh = 0
    for a, b in SORTERS[n]:
        lo, hi = f"l{fresh}", f"h{fresh}"
        fresh += 1
        sorter.append(f"    let {lo} = _umin({current[a]}, {current[b]}), {hi} = _umax({current[a]}, {current[b]})")
        current[a], current[b] = lo, hi
    sorter += [f"    v[{i}] = {current[i]}" for i in range(n)]
    sorter.append("}")
    return "\n".join(lines), "\n".join(sorter)


# How each form of the networks reads, combines and keeps its vectors.
BASELINE = dict(indent="", suffix="", slots="UnsafeMutablePointer<SIMD16<UInt8>>", vector="SIMD16<UInt8>",
                min="_umin", max="_umax", load_slot="s[{slot}]", store_slot="s[{slot}] = {value}")
WIDE = dict(indent="    ", suffix="AVX512", slots="UnsafeMutableRawPointer", vector="__m512i",
            min="_mm512_min_epu8", max="_mm512_max_epu8",
            load_slot="UnsafeRawPointer(s).loadUnaligned(fromByteOffset: {offset}, as: __m512i.self)",
            store_slot="s.storeBytes(of: {value}, toByteOffset: {offset}, as: __m512i.self)")


def chunk_functions(name, chunks, inputs, slot, form):
    """The functions of CHUNK operations each, in `form` (BASELINE or WIDE)."""
    i, lines = form["indent"], []
    for k, chunk in enumerate(chunks):
        defined = {op[1] for op in chunk}
        lines += ["", f"{i}@inline(never)",
                  f"{i}private func {name}{form['suffix']}Part{k}(_ p: UnsafeRawPointer, _ b: Int, _ s: {form['slots']}) {{"]
        loaded = set()
        for op in chunk:
            for v in op[2:]:
                if v not in defined and v not in loaded:
                    if v in inputs:
                        rank, c = inputs[v]
                        lines.append(f"{i}    let v{v} = p.loadUnaligned(fromByteOffset: {4 * rank + c % 4} &* b &+ {4 * (c // 4)}, "
                                     f"as: {form['vector']}.self)")
                    else:
                        lines.append(f"{i}    let v{v} = " + form["load_slot"].format(slot=slot[v], offset=64 * slot[v]))
                    loaded.add(v)
            lines.append(f"{i}    let v{op[1]} = {form[op[0]]}(v{op[2]}, v{op[3]})")
        for op in chunk:
            if op[1] in slot:
                lines.append(f"{i}    " + form["store_slot"].format(slot=slot[op[1]], offset=64 * slot[op[1]], value=f"v{op[1]}"))
        lines.append(f"{i}}}")
    return lines


def swift_wide(n, name, chunks, inputs, slot, used, outputs, count):
    lines = [
        f"    /// `{name}` (SfumatoFilters) on 64 bytes: the medians of four neighbouring blocks of",
        f"    /// {BLOCK} {n}x{n} windows, block k from the 16 bytes k of each vector. The median of window `t`",
        f"    /// of each block is left in the 64 bytes at `slots + 64 * {name}AVX512Outputs[t]`; `slots`",
        f"    /// holds {used} x 64 bytes. {count} min/max operations.",
        "    @inline(never)",
        f"    public func {name}AVX512(_ planes: UnsafeRawPointer, _ planeBytes: Int, _ slots: UnsafeMutableRawPointer) {{",
    ]
    lines += [f"        {name}AVX512Part{k}(planes, planeBytes, slots)" for k in range(len(chunks))]
    lines += ["    }", "", f"    /// Slots of 64 bytes `{name}AVX512` needs.", f"    public let {name}AVX512Slots = {used}",
              f"    /// Where `{name}AVX512` leaves each window's median.",
              f"    public let {name}AVX512Outputs = ({', '.join(str(slot[v]) for v in outputs)})"]
    lines += chunk_functions(name, chunks, inputs, slot, WIDE)
    return "\n".join(lines)


def swift_wide_sorter(n):
    """Phase 1 on 64 bytes: the n window rows' vectors at byte `at`, sorted lane by lane by the
    network `_sort{n}` uses, stored rank by rank into the phase planes."""
    lines = [
        f"    /// `_sort{n}` (SfumatoFilters) on 64 bytes, from the rows to the phase planes: the 64 bytes at",
        f"    /// `rows[dy] + at` for dy in 0 ..< {n} sorted lane by lane ({len(SORTERS[n])} exchanges), rank r stored at",
        "    /// `planes + (4 * r + phase) * planeBytes + first`.",
        "    @inline(never)",
        f"    public func _sortColumns{n}AVX512(",
        "        _ rows: UnsafePointer<UnsafeRawPointer>, at: Int, into planes: UnsafeMutableRawPointer, _ planeBytes: Int, phase: Int, first: Int",
        "    ) {",
    ]
    current = {i: f"a{i}" for i in range(n)}
    lines += [f"        let a{i} = rows[{i}].loadUnaligned(fromByteOffset: at, as: __m512i.self)" for i in range(n)]
    for fresh, (a, b) in enumerate(SORTERS[n]):
        lo, hi = f"l{fresh}", f"h{fresh}"
        lines.append(f"        let {lo} = _mm512_min_epu8({current[a]}, {current[b]}), {hi} = _mm512_max_epu8({current[a]}, {current[b]})")
        current[a], current[b] = lo, hi
    lines += [f"        planes.storeBytes(of: {current[r]}, toByteOffset: ({4 * r} &+ phase) &* planeBytes &+ first, as: __m512i.self)"
              for r in range(n)]
    lines.append("    }")
    return "\n".join(lines)


def main():
    wide = sys.argv[1:] == ["--avx512"]
    if wide:
        parts = ["// Generated by scripts/median-networks.py --avx512 (which explains and checks the networks); do",
                 "// not edit. The networks of SfumatoFilters' MedianNetworks.swift on 512-bit vectors.", "",
                 "#if arch(x86_64)", "    import _Builtin_intrinsics.intel", ""]
    else:
        parts = ["// Generated by scripts/median-networks.py (which explains and checks the networks); do not edit.",
                 "", "import SfumatoCore", ""]
    for n in (5, 7):
        check_sorter(n)
        ops, outputs = block_medians(n)
        check(n, ops, outputs)
        block, sorter = swift(n, ops, outputs, wide)
        parts += [swift_wide_sorter(n), "", block, ""] if wide else [sorter, "", block, ""]
        count = sum(1 for op in ops if op[0] != 'in')
        print(f"{n}x{n}: {count} operations per block of {BLOCK}, {count / BLOCK} per output", file=sys.stderr)
    if wide:
        parts += ["#endif", ""]
    print("\n".join(parts), end="")


if __name__ == '__main__':
    main()
