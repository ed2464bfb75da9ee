"""The CUDA-event timer the GPU peers of both pair suites share (benchmarks/pairwise/ and, through its
path, benchmarks/pair_histogram/): two warm-ups, then the median of `repeats` timed steps in ms."""
import statistics


def cuda_ms(torch, step, repeats):
    for _ in range(2):
        step()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)
