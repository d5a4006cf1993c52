"""Types of the alltoall_py example problem."""
from typing import TypedDict

# rank r's input: for each destination rank d, the list rank r sends to d
input_t = list[list[float]]
# rank r's output: for each source rank s, the list s sent to r
output_t = list[list[float]]


class TestSpec(TypedDict):
    world_size: int
    size: int
    seed: int
