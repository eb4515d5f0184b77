"""Chapter "RoPE in a trained model" (book/trained_models.md), a package for its size; the chapter imports it whole,
`from rope_lib.teach import trained_models`, and reads its helpers flat (`trained_models.train_model`):

- `position_tasks`: synthetic tasks a model solves only by knowing where its tokens are;
- `training`: a small `Model` built for a position task, and its training;
- `length_generalisation`: accuracy on a position task at a given length; a trained model rescaled at test time;
- `attention_probe`: every layer's and head's attention weights, and a score that finds a head attending by a fixed
  offset;
- `experiment_report`: the `make experiments` report (benchmarks/position_encodings.py): its schema, checked, and the
  means and spreads over seeds;
- `figures`: learning curves, accuracy against length, attention maps (an interactive figure), the probe;
- `checks`: the auto-check of the chapter's exercise.
"""

from . import experiment_report
from .attention_probe import OFFSET_HEAD_THRESHOLD, OffsetHead, attention_weights, best_offset_head, offset_scores
from .checks import check_offset_weight
from .figures import (
    attention_map_widget,
    encoding_name,
    plot_attention_map,
    plot_learning_curves,
    plot_length_generalisation,
    plot_loss_curve,
    plot_offset_probe,
)
from .length_generalisation import EVAL_SEED, TEST_TIME_RULES, accuracy, prediction_accuracy, rescaled
from .position_tasks import CopyTask, IGNORE, LookbackTask, TASKS
from .training import BETAS, LEARNING_RATE, WEIGHT_DECAY, masked_loss, model_for_task, train_model

__all__ = [
    "BETAS",
    "EVAL_SEED",
    "IGNORE",
    "LEARNING_RATE",
    "OFFSET_HEAD_THRESHOLD",
    "TASKS",
    "TEST_TIME_RULES",
    "WEIGHT_DECAY",
    "CopyTask",
    "LookbackTask",
    "OffsetHead",
    "accuracy",
    "attention_map_widget",
    "attention_weights",
    "best_offset_head",
    "check_offset_weight",
    "encoding_name",
    "experiment_report",
    "masked_loss",
    "model_for_task",
    "offset_scores",
    "plot_attention_map",
    "plot_learning_curves",
    "plot_length_generalisation",
    "plot_loss_curve",
    "plot_offset_probe",
    "prediction_accuracy",
    "rescaled",
    "train_model",
]
