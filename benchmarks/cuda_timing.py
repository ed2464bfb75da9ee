"""The CUDA-event timer every GPU peer shares (benchmarks/*/peers.py): `warmups` untimed steps, then the
median of `repeats` timed ones, in ms. Each step is timed alone between two events on the stream, so
the time is the GPU's, not Python's."""
import statistics


def cuda_ms(torch, step, repeats, warmups=2):
    for _ in range(warmups):
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

