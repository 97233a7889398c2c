"""mx.lr_scheduler: the learning rate as a function of the update count.

A scheduler is called with ``num_update``, the largest number of updates any
weight has had (the optimizer's count), and returns the learning rate. These
follow MXNet 1.9.1's schedules number for number (tests/python/golden/
lr_schedules.json, made with MXNet by tools/golden/make_lr_schedule_golden.py),
including their state: Factor and MultiFactor keep the rate they reached and
never go back for a smaller count; an optimizer given ``learning_rate`` and a
scheduler sets the scheduler's ``base_lr`` (which Poly and Cosine, decaying
from the rate they were made with, do not read after construction).

Warmup (every scheduler): for num_update < warmup_steps the rate is
warmup_begin_lr, rising linearly to the base rate ('linear') or staying there
('constant').
"""
import logging
import math

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]


class LRScheduler:
    """Base class: the warmup; subclasses decide the rate after it."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        if not isinstance(warmup_steps, int):
            raise TypeError("warmup_steps must be an int, got %r" % (warmup_steps,))
        if warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0")
        if warmup_begin_lr > base_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError("Supports only linear and constant modes of warmup, got %r"
                             % (warmup_mode,))
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        # The end of the warmup is the rate at construction.
        self.warmup_final_lr = base_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        if not num_update < self.warmup_steps:
            raise ValueError("update %d is past the %d warmup steps" % (num_update,
                                                                       self.warmup_steps))
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        span = self.warmup_final_lr - self.warmup_begin_lr
        return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)

    def __call__(self, num_update):
        raise NotImplementedError("a scheduler subclass defines __call__")


class FactorScheduler(LRScheduler):
    """base_lr * factor ** floor((num_update - 1) / step), never below
    stop_factor_lr: the rate drops by ``factor`` after every ``step`` updates."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0  # the update count the current rate started after

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
            logging.info("Update[%d]: learning rate now %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """The rate drops by ``factor`` once the count passes each of ``step`` (an
    increasing list of update counts)."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or not step:
            raise ValueError("step must be a non-empty list of update counts, got %r" % (step,))
        for i, s in enumerate(step):
            if s < 1:
                raise ValueError("Schedule step must be greater or equal than 1 round")
            if i and s <= step[i - 1]:
                raise ValueError("Schedule step must be an increasing integer list")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.cur_step_ind = 0  # the first boundary not yet passed
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: learning rate now %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Poly and Cosine: from the construction rate to ``final_lr`` over the
    updates between the warmup and ``max_update``, then constant."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise TypeError("max_update must be an int, got %r" % (max_update,))
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        if max_update == warmup_steps:
            # MXNet divides by zero at that update; smaller is fine (no decay).
            raise ValueError("max_update (%d) equals warmup_steps: the decay between them "
                             "would be empty" % max_update)
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = max_update - warmup_steps

    def _shape(self, progress):
        """The fraction of (start - final) left at ``progress`` in [0, 1]."""
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            progress = float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * self._shape(
                progress)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """final_lr + (start - final_lr) * (1 - progress) ** pwr."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _shape(self, progress):
        return pow(1 - progress, self.power)


class CosineScheduler(_DecayToFinal):
    """final_lr + (start - final_lr) * (1 + cos(pi * progress)) / 2."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def _shape(self, progress):
        return (1 + math.cos(math.pi * progress)) / 2
