#pragma once
// Every built-in optimizer and learning-rate schedule (kiln/optimizers/all.h).
#include "kiln/optimizers/all.h"
