"""Types of the prefixsum_py example problem."""
from typing import TypedDict

input_t = list[int]
output_t = list[int]


class TestSpec(TypedDict):
    size: int
    seed: int
