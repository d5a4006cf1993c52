"""Types of the vectoradd_py example problem."""
from typing import TypedDict

input_t = tuple[list[float], list[float]]
output_t = list[float]


class TestSpec(TypedDict):
    size: int
    seed: int
