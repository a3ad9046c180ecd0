"""Benchmark harness: Stratus vs PocketBase on the same workloads (see Benchmarks/README.md)."""
