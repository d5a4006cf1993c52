"""Reference for alltoall_py: each rank's input, and the check of what it received."""
import random

from task import input_t, output_t
from utils import match_reference


def _chunk(src: int, dst: int, size: int, seed: int) -> list[float]:
    rng = random.Random(seed * 1_000_003 + src * 1009 + dst)
    return [rng.uniform(-1.0, 1.0) for _ in range(size)]


def generate_input(rank: int, world_size: int, size: int, seed: int) -> input_t:
    return [_chunk(rank, dst, size, seed) for dst in range(world_size)]


def ref_kernel(rank: int, world_size: int, size: int, seed: int) -> output_t:
    return [_chunk(src, rank, size, seed) for src in range(world_size)]


def check_implementation(data: input_t, output: output_t, rank: int, world_size: int, size: int, seed: int):
    expected = ref_kernel(rank, world_size, size, seed)
    if not isinstance(output, list) or len(output) != world_size:
        return False, f"expected {world_size} lists, one from each rank"
    got = [x for chunk in output for x in chunk]
    return match_reference(got, [x for chunk in expected for x in chunk], rtol=0, atol=0)
