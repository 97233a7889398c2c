"""mx.mod: the symbolic training loop (Module, BucketingModule, SequentialModule,
PythonModule, PythonLossModule)."""
from .base_module import BaseModule, BatchEndParam
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule
from .python_module import PythonModule, PythonLossModule

__all__ = ["BaseModule", "BatchEndParam", "Module", "BucketingModule", "SequentialModule",
           "PythonModule", "PythonLossModule"]
