"""mx.metric's regression metrics: MAE, MSE, RMSE and PearsonCorrelation."""
import numpy as _np

from ._base import EvalMetric, register, alias, _pairs, _check_choice


# --------------------------------------------------------------- regression

class _Regression(EvalMetric):
    """A per-batch error averaged over update() pairs (each pair weighs one,
    whatever its size). 1-d labels/predictions are taken as one column."""

    def __init__(self, name, output_names, label_names):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(diff):
        raise NotImplementedError()

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            try:
                diff = label - pred
            except ValueError:
                raise ValueError("%s: labels of shape %s and predictions of shape %s do not "
                                 "broadcast" % (self.name, label.shape, pred.shape))
            self._add(float(self._error(diff)), 1)


@register
class MAE(_Regression):
    """Mean absolute error, averaged over batches."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return _np.abs(diff).mean()


@register
class MSE(_Regression):
    """Mean squared error, averaged over batches."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return (diff ** 2.0).mean()


@register
class RMSE(_Regression):
    """Root of each batch's mean squared error, averaged over batches."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return _np.sqrt((diff ** 2.0).mean())


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions with labels (same shapes, flattened).

    'macro': the mean of each label/prediction pair's correlation;
    'micro': one correlation over every value since the reset, kept with
    running means and sums of squares (reset_local does not clear those, and,
    as in MXNet, get_global() is 0.0 in this mode: its global sum never grows).
    """

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = _check_choice(average, "PearsonCorrelation: average", ("macro", "micro"))
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _clear_running(self):
        self._label_nums = self._pred_nums = 0
        self._mean_l = self._mean_p = 0.0
        self._sse_l = self._sse_p = 0.0
        self._conv = 0.0

    def reset(self):
        super().reset()
        if self.average == "micro":
            self._clear_running()

    @staticmethod
    def _moments(values, count, mean, sse):
        """Folds a batch into a running (count, mean, sum of squared deviations)."""
        count += values.size
        shift = values - mean
        mean = mean + _np.sum(shift / count)
        sse = sse + _np.sum(shift * (values - mean))
        return count, mean, sse

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            if label.shape != pred.shape:
                raise ValueError("Shape of labels {} does not match shape of predictions {}"
                                 .format(label.shape, pred.shape))
            label = label.ravel().astype(_np.float64)
            pred = pred.ravel().astype(_np.float64)
            if self.average == "macro":
                with _np.errstate(divide="ignore", invalid="ignore"):
                    self._add(float(_np.corrcoef(pred, label)[0, 1]), 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            self._label_nums, self._mean_l, self._sse_l = self._moments(
                label, self._label_nums, self._mean_l, self._sse_l)
            # The co-moment pairs the labels' updated mean with the
            # predictions' previous one: that keeps it exact batch by batch.
            self._conv = self._conv + _np.sum((label - self._mean_l) * (pred - self._mean_p))
            self._pred_nums, self._mean_p, self._sse_p = self._moments(
                pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, self.sum_metric / self.num_inst)
        dof = self._label_nums - 1
        with _np.errstate(divide="ignore", invalid="ignore"):
            value = self._conv / (dof * _np.sqrt(self._sse_p / dof) * _np.sqrt(self._sse_l / dof))
        return (self.name, float(value))
