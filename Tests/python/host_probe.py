"""Whether the machine itself keeps its speed: a fixed piece of work, timed every 5 ms on each CPU.

A virtual machine's CPUs can lose most of their time to its host for tens of milliseconds, whatever
runs inside (this project's 2-core test machine does so one to two times a second). Nothing a
program does can keep a frame on time through that, so the latency test records when it happened
and says which slow samples it explains (test_latency.py).

One probe process per CPU, pinned to it, runs the same ~0.15 ms loop every 5 ms (about 3% of the
CPU) and notes how long the loop took. Where it may (as root), it runs at real-time priority, so
the machine's own processes cannot delay it and a slow loop means the CPU itself was slow.
A loop slower than SLOW_FACTOR times its CPU's median is a stalled moment, and so is a loop that
started SLOW_FACTOR times later than usual (the CPU stopped while the probe slept); the loops slower
than FADE_FACTOR times the median on either side belong to it. Stalled moments on any CPU less than
MERGE_GAP_S apart make one stall.

    python host_probe.py 10      # a 10 s reading of this machine, on its own
"""
import os
import signal
import statistics
import subprocess
import sys
import time

SLOW_FACTOR = 3.0
FADE_FACTOR = 1.5
MERGE_GAP_S = 0.02
PERIOD_S = 0.005
REAL_TIME_PRIORITY = 50


class HostProbe:
    """Starts one probe per CPU; stop() returns the stalls seen meanwhile."""

    def __init__(self):
        self.processes = []
        self.started = self.stopped = None
        self.loops = {}          # cpu -> [(start monotonic s, duration s)]
        self.real_time = False

    def start(self):
        """Starts a probe on each CPU and returns once all of them are timing (their start-up is over)."""
        for cpu in sorted(os.sched_getaffinity(0)):
            self.processes.append((cpu, subprocess.Popen([sys.executable, __file__, "--cpu", str(cpu)],
                                                         stdout=subprocess.PIPE, text=True)))
        modes = []
        for cpu, process in self.processes:
            header = process.stdout.readline().split()     # "probe real-time|normal cpu N"
            if header[:1] != ["probe"]:
                self.close()
                raise RuntimeError(f"the host probe on CPU {cpu} did not start (exit {process.poll()})")
            modes.append(header[1])
        self.real_time = all(mode == "real-time" for mode in modes)
        self.started = time.monotonic()
        return self

    def stop(self):
        """Ends the probes and reads their loops (a probe that died is an error, not an empty reading)."""
        self.stopped = time.monotonic()
        processes, self.processes = self.processes, []
        try:
            for _, process in processes:
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for cpu, process in processes:
                out, _ = process.communicate(timeout=10)
                if process.returncode != 0:
                    raise RuntimeError(f"the host probe on CPU {cpu} failed (exit {process.returncode})")
                self.loops[cpu] = [tuple(map(float, line.split())) for line in out.split("\n") if line]
        finally:
            _kill(processes)
        return self

    def close(self):
        """Ends the probes without reading them (a measurement that failed midway)."""
        processes, self.processes = self.processes, []
        _kill(processes)

    def stalls(self):
        """[(start, end)] in time.monotonic() seconds: the moments some CPU ran slowly or not at all."""
        moments = []
        for loops in self.loops.values():
            moments += _stalled_moments(loops)
        merged = []
        for a, b in sorted(moments):
            if merged and a - merged[-1][1] <= MERGE_GAP_S:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        return [tuple(s) for s in merged]

    def summary(self):
        stalls = self.stalls()
        span = max(1e-9, self.stopped - self.started)
        return {
            "real_time": self.real_time,
            "seconds": round(span, 2),
            "loop_ms": {str(cpu): round(1000 * statistics.median(d for _, d in loops), 3) for cpu, loops in self.loops.items() if loops},
            "loops_per_cpu": {str(cpu): len(loops) for cpu, loops in self.loops.items()},
            "stalls": len(stalls),
            "stalls_per_second": round(len(stalls) / span, 2),
            "stalled_fraction": round(sum(b - a for a, b in stalls) / span, 4),
            "longest_stall_ms": round(1000 * max((b - a for a, b in stalls), default=0), 1),
        }


def _stalled_moments(loops):
    """One CPU's stalled moments: a loop slower than SLOW_FACTOR x the median, or a start later than
    SLOW_FACTOR x the usual interval (the CPU did not run the probe at all: a stall while it slept),
    each with the slower-than-usual loops around it (a stall fades out over a few loops)."""
    if len(loops) < 3:
        return []
    median = statistics.median(d for _, d in loops)
    interval = statistics.median(b[0] - a[0] for a, b in zip(loops, loops[1:]))
    strong = [d > SLOW_FACTOR * median for _, d in loops]
    late = [False] + [b[0] - a[0] > SLOW_FACTOR * interval for a, b in zip(loops, loops[1:])]
    weak = [d > FADE_FACTOR * median for _, d in loops]
    moments = []
    i = 0
    while i < len(loops):
        if not (strong[i] or late[i]):
            i += 1
            continue
        first = i
        while first > 0 and weak[first - 1] and not late[first]:
            first -= 1
        last = i
        while last + 1 < len(loops) and (weak[last + 1] or strong[last + 1]) and not late[last + 1]:
            last += 1
        start = loops[first][0]
        if late[first]:
            start = loops[first - 1][0] + loops[first - 1][1]     # from the end of the loop before the gap
        moments.append((start, loops[last][0] + loops[last][1]))
        i = last + 1
    return moments


def _kill(processes):
    for _, process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def overlaps(windows, stalls):
    """For each (start, end) window, how many seconds of it stalls cover (both in monotonic seconds)."""
    return [sum(max(0.0, min(end, b) - max(start, a)) for a, b in stalls) for start, end in windows]


def _work():
    x = 0
    for i in range(3000):
        x += i
    return x


def _probe(cpu):
    """Says it has started, runs until SIGTERM, then prints its loops."""
    running = [True]
    signal.signal(signal.SIGTERM, lambda *_: running.__setitem__(0, False))
    os.sched_setaffinity(0, {cpu})
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REAL_TIME_PRIORITY))
        mode = "real-time"
    except (PermissionError, OSError):
        mode = "normal"
    print(f"probe {mode} cpu {cpu}", flush=True)
    loops = []
    while running[0]:
        a = time.monotonic()
        _work()
        loops.append((a, time.monotonic() - a))
        time.sleep(PERIOD_S)
    print("\n".join(f"{a:.6f} {d:.6f}" for a, d in loops))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cpu"]:
        _probe(int(sys.argv[2]))
    else:
        probe = HostProbe().start()
        time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 10)
        print(probe.stop().summary())
