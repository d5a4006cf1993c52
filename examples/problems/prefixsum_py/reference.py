"""Reference for prefixsum_py: input generation, the reference scan and the correctness check."""
import itertools
import random

from task import input_t, output_t
from utils import match_reference


def generate_input(size: int, seed: int) -> input_t:
    rng = random.Random(seed)
    return [rng.randint(-1000, 1000) for _ in range(size)]


def ref_kernel(data: input_t) -> output_t:
    return list(itertools.accumulate(data))


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    return match_reference(output, ref_kernel(data), rtol=0.0, atol=0.0)
