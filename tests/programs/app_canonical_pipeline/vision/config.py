"""Settings of a pipeline run."""

from dataclasses import dataclass


@dataclass
class Settings:
    width: int = 32
    height: int = 24
    frames: int = 4
    exposure: float = 1.2
    black_level: float = 0.05
    threshold: float = 0.5
    quality: str = "high"
