#pragma once
// All of Kiln's Keras callbacks (namespace kiln::callbacks). History and
// ProgbarLogger live in kiln/training/callback.h because fit() always adds them.
//
//   namespace cb = kiln::callbacks;
//   model.fit(x, y, {.epochs = 50, .validation_split = 0.2, .callbacks = {
//       cb::EarlyStopping({.monitor = "val_loss", .patience = 3, .restore_best_weights = true}),
//       cb::ReduceLROnPlateau({.factor = 0.5, .patience = 2}),
//       cb::CSVLogger("training.csv"),
//       cb::TensorBoard("logs")}});
//
// To add a callback:
//   1. Derive from kiln::Callback in callbacks/include/kiln/callbacks/<name>.h,
//      with Keras's arguments in an options struct (Keras defaults, designated initializers).
//   2. Override the hooks it needs in callbacks/src/<name>.cpp; read and change the
//      model through model() (stop_training, optimizer(), get_weights()/set_weights()).
//   3. Include it here and add a behavioural test in tests/callbacks/.
#include "kiln/training/callback.h"
#include "kiln/callbacks/backup_and_restore.h"
#include "kiln/callbacks/csv_logger.h"
#include "kiln/callbacks/early_stopping.h"
#include "kiln/callbacks/lambda_callback.h"
#include "kiln/callbacks/learning_rate_scheduler.h"
#include "kiln/callbacks/model_checkpoint.h"
#include "kiln/callbacks/reduce_lr_on_plateau.h"
#include "kiln/callbacks/tensorboard.h"
#include "kiln/callbacks/terminate_on_nan.h"
