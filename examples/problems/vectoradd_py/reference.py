"""Reference for vectoradd_py: input generation, the reference kernel and the correctness check."""
import random

from task import input_t, output_t
from utils import match_reference


def generate_input(size: int, seed: int) -> input_t:
    rng = random.Random(seed)
    a = [rng.uniform(-1.0, 1.0) for _ in range(size)]
    b = [rng.uniform(-1.0, 1.0) for _ in range(size)]
    return a, b


def ref_kernel(data: input_t) -> output_t:
    a, b = data
    return [x + y for x, y in zip(a, b)]


def check_implementation(data: input_t, output: output_t) -> tuple[bool, str]:
    return match_reference(output, ref_kernel(data), rtol=1e-6, atol=1e-9)
