"""Recurrent layers, their wrappers and Masking for the layers group
(oracle_layers.VARIANTS; same tuple format). Sequences are 5 steps long, with
odd feature sizes. Layer-valued arguments (Bidirectional's layer, RNN's cell,
TimeDistributed's layer) are Keras objects; Keras serializes them into the
config that Kiln reads."""
import keras

F = "float"

VARIANTS = [
    ("SimpleRNN", {"units": 3}, [(F, (5, 2))], False),
    ("SimpleRNN", {"units": 2, "activation": "relu", "return_sequences": True, "go_backwards": True},
     [(F, (5, 3))], False),
    ("LSTM", {"units": 3}, [(F, (5, 2))], False),
    ("LSTM", {"units": 2, "return_sequences": True, "use_bias": False, "unit_forget_bias": False}, [(F, (4, 3))], False),
    ("LSTM", {"units": 2, "go_backwards": True, "recurrent_activation": "hard_sigmoid", "activation": "relu"},
     [(F, (5, 2))], False),
    ("GRU", {"units": 3}, [(F, (5, 2))], False),
    ("GRU", {"units": 2, "reset_after": False, "return_sequences": True}, [(F, (5, 3))], False),
    ("GRU", {"units": 2, "go_backwards": True, "return_sequences": True, "use_bias": False}, [(F, (4, 2))], False),
    ("RNN", {"cell": keras.layers.LSTMCell(2)}, [(F, (5, 3))], False),
    ("RNN", {"cell": keras.layers.GRUCell(2, reset_after=False), "return_sequences": True}, [(F, (4, 2))], False),
    ("RNN", {"cell": keras.layers.SimpleRNNCell(3), "go_backwards": True}, [(F, (4, 2))], False),
    ("RNN", {"cell": keras.layers.StackedRNNCells([keras.layers.LSTMCell(2), keras.layers.GRUCell(3)]),
             "return_sequences": True}, [(F, (4, 3))], False),
    ("Bidirectional", {"layer": keras.layers.LSTM(2)}, [(F, (5, 3))], False),
    ("Bidirectional", {"layer": keras.layers.GRU(2, return_sequences=True), "merge_mode": "sum"}, [(F, (4, 2))], False),
    ("Bidirectional", {"layer": keras.layers.SimpleRNN(2, return_sequences=True), "merge_mode": "mul"},
     [(F, (4, 2))], False),
    ("Bidirectional", {"layer": keras.layers.LSTM(2, return_sequences=True), "merge_mode": "ave"}, [(F, (3, 2))], False),
    ("TimeDistributed", {"layer": keras.layers.Dense(3)}, [(F, (4, 5))], False),
    ("TimeDistributed", {"layer": keras.layers.Conv2D(2, 2)}, [(F, (3, 4, 4, 1))], False),
    ("Masking", {"mask_value": 0.0}, [(F, (5, 3))], False),
    # ConvLSTM inputs are (time, *spatial, channels); 2 or 3 steps keep Keras's eager loop short. Valid padding
    # and return_state are each in two classes' rows; channels_first in one.
    ("ConvLSTM1D", {"filters": 2, "kernel_size": 3, "padding": "same", "return_sequences": True, "go_backwards": True},
     [(F, (3, 5, 2))], False),
    ("ConvLSTM1D", {"filters": 3, "kernel_size": 2, "strides": 2, "use_bias": False, "return_state": True},
     [(F, (2, 5, 1))], False),
    ("ConvLSTM2D", {"filters": 2, "kernel_size": 3, "padding": "same", "dilation_rate": 2, "return_sequences": True},
     [(F, (2, 5, 4, 2))], False),
    ("ConvLSTM2D", {"filters": 2, "kernel_size": (2, 3), "strides": (2, 1), "go_backwards": True, "use_bias": False,
                    "activation": "relu", "recurrent_activation": "hard_sigmoid"}, [(F, (3, 5, 4, 1))], False),
    ("ConvLSTM2D", {"filters": 2, "kernel_size": 2, "data_format": "channels_first", "return_sequences": True,
                    "unit_forget_bias": False}, [(F, (2, 2, 4, 3))], False),
    ("ConvLSTM3D", {"filters": 2, "kernel_size": 2, "return_state": True}, [(F, (2, 3, 3, 3, 1))], False),
    ("Bidirectional", {"layer": keras.layers.ConvLSTM2D(2, 2, padding="same", return_sequences=True)},
     [(F, (2, 4, 3, 1))], False),
    ("ConvLSTM3D", {"filters": 1, "kernel_size": (2, 3, 2), "padding": "same", "strides": (2, 1, 1),
                    "return_sequences": True}, [(F, (2, 3, 3, 2, 2))], False),
]

# Cells are called with their states, (x, [h, c]); the RNN cases above cover
# each through RNN(cell).
NOT_COVERED = {
    "LSTMCell": "a cell takes (x, states); RNN(LSTMCell) cases cover it",
    "GRUCell": "a cell takes (x, states); RNN(GRUCell) cases cover it",
    "SimpleRNNCell": "a cell takes (x, states); RNN(SimpleRNNCell) cases cover it",
    "StackedRNNCells": "a cell takes (x, states); the RNN(StackedRNNCells) case covers it",
}
