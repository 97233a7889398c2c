"""mx.metric: evaluation metrics over (labels, predictions) batches.

The family of MXNet 1.9.1's ``mxnet.metric`` with its numbers: every metric
keeps a local and a global running statistic (``num_inst``/``sum_metric`` and
``global_num_inst``/``global_sum_metric``); ``reset_local()`` clears only the
local one, ``reset()`` both. Metrics work on host copies (numpy) of symx
NDArrays or on numpy arrays directly, once per batch, in the arrays' own
precision (float32 for NDArrays), as MXNet's Python metrics do.

Metrics are found by name through a registry: ``create('acc')``,
``create('top_k_acc', top_k=5)``, ``create(['acc', 'ce'])``,
``create(my_function)`` (a CustomMetric), ``create(**metric.get_config())``.
"""
from ._base import (EvalMetric, CompositeEvalMetric, create, register, alias,  # noqa: F401
                    check_label_shapes)
from .classification import (Accuracy, TopKAccuracy, F1, MCC, Perplexity,  # noqa: F401
                             CrossEntropy, NegativeLogLikelihood, PCC)
from .regression import MAE, MSE, RMSE, PearsonCorrelation  # noqa: F401
from .custom import Loss, Torch, Caffe, CustomMetric, np  # noqa: F401

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np",
           "create", "register", "alias", "check_label_shapes"]
