"""The benchmark harness in parts: common (paths, tools, the peers' modules), harness (timing), images,
peers (the maths the peers are given), rows (the operations), report (BENCHMARKS.md)."""
