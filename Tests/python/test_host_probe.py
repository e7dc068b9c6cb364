"""host_probe's reading of its loops: which moments count as the machine stalling."""
import os

from host_probe import HostProbe, _stalled_moments, overlaps

PERIOD = 0.005
LOOP = 0.0002


def steady(n, start=0.0):
    """n loops of the usual length, one every PERIOD."""
    return [(start + i * PERIOD, LOOP) for i in range(n)]


def test_a_steady_cpu_has_no_stalls():
    loops = steady(200)
    loops[50] = (loops[50][0], LOOP * 1.4)    # ordinary jitter
    assert _stalled_moments(loops) == []


def test_a_slow_loop_is_a_stall_with_its_fading_neighbours():
    loops = steady(200)
    for i, factor in ((100, 10), (101, 4), (102, 2), (103, 1.6), (104, 1.2)):
        loops[i] = (loops[i][0], LOOP * factor)
    loops[99] = (loops[99][0], LOOP * 1.1)
    [(start, end)] = _stalled_moments(loops)
    assert start == loops[100][0]
    assert abs(end - (loops[103][0] + LOOP * 1.6)) < 1e-12      # the fade ends where loops are usual again


def test_a_late_start_is_a_stall_from_the_loop_before():
    loops = steady(100) + steady(100, start=100 * PERIOD + 0.08)   # 80 ms without a loop
    [(start, end)] = _stalled_moments(loops)
    assert abs(start - (loops[99][0] + LOOP)) < 1e-12
    assert abs(end - (loops[100][0] + LOOP)) < 1e-12


def test_stalls_on_either_cpu_merge_and_windows_overlap_them():
    probe = HostProbe()
    a, b = steady(200), steady(200, start=0.001)
    a[100] = (a[100][0], 0.004)
    b[101] = (b[101][0], 0.003)
    b[150] = (b[150][0], 0.003)
    probe.loops = {0: a, 1: b}
    stalls = probe.stalls()
    assert len(stalls) == 2
    assert stalls[0][0] == a[100][0] and stalls[0][1] == b[101][0] + 0.003
    covered = overlaps([(0.49, 0.501), (0.3, 0.31), (0.752, 0.8)], stalls)
    assert abs(covered[0] - (0.501 - a[100][0])) < 1e-12 and covered[1] == 0
    assert abs(covered[2] - (b[150][0] + 0.003 - 0.752)) < 1e-12


def test_a_probe_stopped_at_once_still_gives_its_reading_and_ends():
    probe = HostProbe().start()
    processes = [p for _, p in probe.processes]
    probe.stop()
    assert all(p.poll() is not None for p in processes)
    assert sorted(probe.loops) == sorted(os.sched_getaffinity(0))
