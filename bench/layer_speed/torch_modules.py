"""PyTorch's equivalent of each row of cases.py: the torch.nn module where one
exists ("nn"), else the torch functions that compute the same ("ops"), else
nothing (NO_EQUIVALENT, with the reason). Images and feature maps are
channels-first (PyTorch's own layout, and its fast path); sequences are
batch-first. Each builder gets the row's input specs and returns
(module, inputs): module(*inputs) is the forward call."""
import torch
from torch import nn
import torch.nn.functional as F

NO_EQUIVALENT = {
    "Masking": "no mask propagation in torch.nn",
    "GaussianDropout": "no module", "GaussianNoise": "no module",
    "ActivityRegularization": "no module (a loss term)", "StochasticDepth": "torchvision's, not torch.nn",
    "ConvLSTM1D": "no module", "ConvLSTM2D": "no module", "ConvLSTM3D": "no module",
    "CategoryEncoding": "no module", "Hashing": "no module", "IntegerLookup": "no module",
    "HashedCrossing": "no module", "STFTSpectrogram": "torchaudio's, not torch.nn",
    "MelSpectrogram": "torchaudio's, not torch.nn", "ReversibleEmbedding": "no module",
    "Pipeline": "no module",
}
AUGMENTATIONS = ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomShear",
                 "RandomPerspective", "RandomElasticTransform", "RandomCrop", "RandomContrast", "RandomBrightness",
                 "RandomHue", "RandomSaturation", "RandomSharpness", "RandomColorDegeneration",
                 "RandomColorJitter", "RandomGrayscale", "RandomInvert", "RandomPosterization", "RandomErasing",
                 "RandomGaussianBlur", "Solarization", "AutoContrast", "Equalization",
                 "ContrastLimitedAdaptiveHistogramEqualization", "MixUp", "CutMix", "RandAugment", "AugMix",
                 "MaxNumBoundingBoxes"]
NO_EQUIVALENT.update({a: "torchvision's transforms, not torch.nn" for a in AUGMENTATIONS})


def cf(shape):
    """Channels-last (N, ..., C) to channels-first (N, C, ...)."""
    return (shape[0], shape[-1]) + tuple(shape[1:-1])


class Fn(nn.Module):
    """torch functions as a module (the "ops" rows)."""

    def __init__(self, fn, *children):
        super().__init__()
        self.fn = fn
        self.children_ = nn.ModuleList(children)

    def forward(self, *xs):
        return self.fn(*xs)


def _merge(fn):
    return lambda s: (Fn(fn), [torch.randn(cf(x[1])) for x in s])


def _conv_rows():
    b = {}
    b["Conv1D"] = lambda s: (nn.Conv1d(128, 128, 3, padding=1), [torch.randn(cf(s[0][1]))])
    b["Conv2D"] = lambda s: (nn.Conv2d(32, 32, 3, padding=1), [torch.randn(cf(s[0][1]))])
    b["Conv3D"] = lambda s: (nn.Conv3d(8, 8, 3, padding=1), [torch.randn(cf(s[0][1]))])
    # Keras's "same" transposed convolution with stride 2 doubles the size: padding 1, output_padding 1.
    b["Conv1DTranspose"] = lambda s: (nn.ConvTranspose1d(64, 64, 3, 2, 1, 1), [torch.randn(cf(s[0][1]))])
    b["Conv2DTranspose"] = lambda s: (nn.ConvTranspose2d(32, 32, 3, 2, 1, 1), [torch.randn(cf(s[0][1]))])
    b["Conv3DTranspose"] = lambda s: (nn.ConvTranspose3d(8, 8, 3, 2, 1, 1), [torch.randn(cf(s[0][1]))])
    b["DepthwiseConv1D"] = lambda s: (nn.Conv1d(128, 128, 3, padding=1, groups=128), [torch.randn(cf(s[0][1]))])
    b["DepthwiseConv2D"] = lambda s: (nn.Conv2d(64, 64, 3, padding=1, groups=64), [torch.randn(cf(s[0][1]))])
    b["SeparableConv1D"] = lambda s: (nn.Sequential(nn.Conv1d(128, 128, 3, padding=1, groups=128, bias=False),
                                                    nn.Conv1d(128, 128, 1)), [torch.randn(cf(s[0][1]))])
    b["SeparableConv2D"] = lambda s: (nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False),
                                                    nn.Conv2d(32, 64, 1)), [torch.randn(cf(s[0][1]))])
    return b


def _pool_rows():
    b = {}
    for d in (1, 2, 3):
        for kind, mod in (("Max", "MaxPool"), ("Average", "AvgPool")):
            b["%sPooling%dD" % (kind, d)] = (lambda m, d: lambda s: (
                getattr(nn, "%s%dd" % (m, d))(2), [torch.randn(cf(s[0][1]))]))(mod, d)
            b["Global%sPooling%dD" % (kind, d)] = (lambda m, d: lambda s: (
                nn.Sequential(getattr(nn, "Adaptive%s%dd" % (m, d))(1), nn.Flatten()),
                [torch.randn(cf(s[0][1]))]))(mod, d)
            b["Adaptive%sPooling%dD" % (kind, d)] = (lambda m, d: lambda s: (
                getattr(nn, "Adaptive%s%dd" % (m, d))(16 if d == 1 else 4), [torch.randn(cf(s[0][1]))]))(mod, d)
    return b


def _norm_rows():
    b = {}
    # Keras's momentum 0.99 is PyTorch's 0.01; epsilon 1e-3 in both.
    b["BatchNormalization"] = lambda s: (nn.BatchNorm2d(32, eps=1e-3, momentum=0.01), [torch.randn(cf(s[0][1]))])
    b["LayerNormalization"] = lambda s: (nn.LayerNorm(128, eps=1e-3), [torch.randn(s[0][1])])
    b["GroupNormalization"] = lambda s: (nn.GroupNorm(8, 32, eps=1e-3), [torch.randn(cf(s[0][1]))])
    b["RMSNormalization"] = lambda s: (nn.RMSNorm(128, eps=1e-6), [torch.randn(s[0][1])])
    b["UnitNormalization"] = lambda s: (Fn(lambda x: F.normalize(x, dim=-1)), [torch.randn(s[0][1])])
    mean, std = torch.full((128,), 0.5), torch.full((128,), 2.0).sqrt()
    b["Normalization"] = lambda s: (Fn(lambda x: (x - mean) / std), [torch.randn(s[0][1])])
    b["SpectralNormalization"] = lambda s: (nn.utils.parametrizations.spectral_norm(nn.Linear(512, 512)),
                                            [torch.randn(s[0][1])])
    return b


def _regularization_rows():
    b = {}
    b["Dropout"] = lambda s: (nn.Dropout(0.5), [torch.randn(s[0][1])])
    b["SpatialDropout1D"] = lambda s: (nn.Dropout1d(0.5), [torch.randn(cf(s[0][1]))])
    b["SpatialDropout2D"] = lambda s: (nn.Dropout2d(0.5), [torch.randn(cf(s[0][1]))])
    b["SpatialDropout3D"] = lambda s: (nn.Dropout3d(0.5), [torch.randn(cf(s[0][1]))])
    b["AlphaDropout"] = lambda s: (nn.AlphaDropout(0.2), [torch.randn(s[0][1])])
    gamma = nn.Parameter(torch.full((128,), 1e-6))
    b["LayerScale"] = lambda s: (Fn(lambda x: x * gamma), [torch.randn(s[0][1])])
    b["CustomScaleLayer"] = _merge(lambda a, c: a + c * 0.17)
    return b


def _shape_rows():
    b = {}
    b["Flatten"] = lambda s: (nn.Flatten(), [torch.randn(cf(s[0][1]))])
    b["Reshape"] = lambda s: (nn.Unflatten(1, (64, 512)), [torch.randn(16, 32 * 32 * 32)])
    # Keras, JAX and Kiln give a new array: PyTorch's view is made contiguous to do the same work.
    b["Permute"] = lambda s: (Fn(lambda x: x.permute(0, 2, 1).contiguous()), [torch.randn(s[0][1])])
    b["RepeatVector"] = lambda s: (Fn(lambda x: x.unsqueeze(1).expand(-1, 32, -1).contiguous()), [torch.randn(s[0][1])])
    b["Cropping1D"] = lambda s: (Fn(lambda x: x[:, :, 4:-4].contiguous()), [torch.randn(cf(s[0][1]))])
    b["Cropping2D"] = lambda s: (Fn(lambda x: x[:, :, 2:-2, 2:-2].contiguous()), [torch.randn(cf(s[0][1]))])
    b["Cropping3D"] = lambda s: (Fn(lambda x: x[:, :, 2:-2, 2:-2, 2:-2].contiguous()), [torch.randn(cf(s[0][1]))])
    b["ZeroPadding1D"] = lambda s: (nn.ZeroPad1d(2), [torch.randn(cf(s[0][1]))])
    b["ZeroPadding2D"] = lambda s: (nn.ZeroPad2d(2), [torch.randn(cf(s[0][1]))])
    b["ZeroPadding3D"] = lambda s: (nn.ZeroPad3d(2), [torch.randn(cf(s[0][1]))])
    b["UpSampling1D"] = lambda s: (nn.Upsample(scale_factor=2), [torch.randn(cf(s[0][1]))])
    b["UpSampling2D"] = lambda s: (nn.Upsample(scale_factor=2), [torch.randn(cf(s[0][1]))])
    b["UpSampling3D"] = lambda s: (nn.Upsample(scale_factor=2), [torch.randn(cf(s[0][1]))])
    return b


class CellLoop(nn.Module):
    """Keras's RNN(cell): the cell called step by step (return_sequences or the last output)."""

    def __init__(self, cells, sequences=False):
        super().__init__()
        self.cells = nn.ModuleList(cells)
        self.sequences = sequences

    def forward(self, x):
        states = [None] * len(self.cells)
        outs = []
        for t in range(x.shape[1]):
            h = x[:, t]
            for i, cell in enumerate(self.cells):
                if states[i] is None:
                    states[i] = cell(h)
                else:
                    states[i] = cell(h, states[i])
                h = states[i][0] if isinstance(states[i], tuple) else states[i]
            outs.append(h)
        return torch.stack(outs, 1) if self.sequences else outs[-1]


class LastOutput(nn.Module):
    """nn.LSTM/GRU/RNN's last time step, as Keras returns without return_sequences."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        y, _ = self.rnn(x)
        return y[:, -1]


def _recurrent_rows():
    b = {}
    x = lambda s: [torch.randn(s[0][1])]  # noqa: E731
    b["SimpleRNN"] = lambda s: (LastOutput(nn.RNN(64, 128, batch_first=True)), x(s))
    b["LSTM"] = lambda s: (LastOutput(nn.LSTM(64, 128, batch_first=True)), x(s))
    b["GRU"] = lambda s: (LastOutput(nn.GRU(64, 128, batch_first=True)), x(s))
    b["RNN"] = lambda s: (CellLoop([nn.LSTMCell(64, 128)], sequences=True), x(s))
    b["SimpleRNNCell"] = lambda s: (CellLoop([nn.RNNCell(64, 128)]), x(s))
    b["LSTMCell"] = lambda s: (CellLoop([nn.LSTMCell(64, 128)]), x(s))
    b["GRUCell"] = lambda s: (CellLoop([nn.GRUCell(64, 128)]), x(s))
    b["StackedRNNCells"] = lambda s: (CellLoop([nn.LSTMCell(64, 128), nn.LSTMCell(128, 128)]), x(s))

    def bidirectional(s):
        rnn = nn.LSTM(64, 64, batch_first=True, bidirectional=True)
        # Keras's Bidirectional(LSTM(64)) concatenates each direction's final output.
        return Fn(lambda v: torch.cat([h for h in rnn(v)[1][0]], -1), rnn), x(s)
    b["Bidirectional"] = bidirectional
    b["TimeDistributed"] = lambda s: (nn.Linear(64, 128), x(s))
    return b


class GroupQuery(nn.Module):
    """Keras's GroupQueryAttention: q/k/v projections, grouped scaled dot-product attention, output projection."""

    def __init__(self, dim, heads, kv_heads, head_dim):
        super().__init__()
        self.q = nn.Linear(dim, heads * head_dim)
        self.k = nn.Linear(dim, kv_heads * head_dim)
        self.v = nn.Linear(dim, kv_heads * head_dim)
        self.o = nn.Linear(heads * head_dim, dim)
        self.shape = (heads, kv_heads, head_dim)

    def forward(self, query, value):
        h, kv, d = self.shape
        n, t, _ = query.shape
        q = self.q(query).view(n, t, h, d).transpose(1, 2)
        k = self.k(value).view(n, -1, kv, d).transpose(1, 2)
        v = self.v(value).view(n, -1, kv, d).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return self.o(y.transpose(1, 2).reshape(n, t, h * d))


def _additive(q, v):
    scores = torch.tanh(q.unsqueeze(2) + v.unsqueeze(1)).sum(-1)
    return torch.softmax(scores, -1) @ v


def _attention_rows():
    b = {}
    two = lambda s: [torch.randn(x[1]) for x in s]  # noqa: E731
    # Keras's Attention() does not scale the scores (use_scale=False).
    b["Attention"] = lambda s: (Fn(lambda q, v: F.scaled_dot_product_attention(q, v, v, scale=1.0)), two(s))
    b["AdditiveAttention"] = lambda s: (Fn(_additive), two(s))
    mha = lambda s: nn.MultiheadAttention(256, 8, batch_first=True)  # noqa: E731

    def multi_head(s):
        m = mha(s)
        return Fn(lambda q, v: m(q, v, v, need_weights=False)[0], m), two(s)
    b["MultiHeadAttention"] = multi_head
    b["GroupQueryAttention"] = lambda s: (GroupQuery(256, 8, 2, 32), two(s))
    return b


def _image_rows():
    b = {}
    b["Rescaling"] = lambda s: (Fn(lambda x: x * (1.0 / 255)), [torch.randn(cf(s[0][1]))])
    b["Resizing"] = lambda s: (Fn(lambda x: F.interpolate(x, size=(32, 32), mode="bilinear")),
                               [torch.randn(cf(s[0][1]))])
    b["CenterCrop"] = lambda s: (Fn(lambda x: x[:, :, 8:56, 8:56].contiguous()), [torch.randn(cf(s[0][1]))])
    bins = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0])
    b["Discretization"] = lambda s: (Fn(lambda x: torch.bucketize(x, bins, right=True)), [torch.randn(s[0][1])])
    return b


def builders():
    b = {
        "Dense": lambda s: (nn.Linear(512, 512), [torch.randn(s[0][1])]),
        "EinsumDense": lambda s: (nn.Linear(128, 256), [torch.randn(s[0][1])]),
        "Activation": lambda s: (nn.GELU(), [torch.randn(cf(s[0][1]))]),
        "ReLU": lambda s: (nn.ReLU(), [torch.randn(cf(s[0][1]))]),
        "LeakyReLU": lambda s: (nn.LeakyReLU(0.2), [torch.randn(cf(s[0][1]))]),
        "ELU": lambda s: (nn.ELU(), [torch.randn(cf(s[0][1]))]),
        "PReLU": lambda s: (nn.PReLU(32), [torch.randn(cf(s[0][1]))]),
        "Softmax": lambda s: (nn.Softmax(-1), [torch.randn(s[0][1])]),
        "Embedding": lambda s: (nn.Embedding(10000, 128), [torch.randint(0, 10000, s[0][1])]),
        "Identity": lambda s: (nn.Identity(), [torch.randn(s[0][1])]),
        "Add": _merge(torch.add), "Subtract": _merge(torch.sub), "Multiply": _merge(torch.mul),
        "Average": _merge(lambda a, c: (a + c) / 2), "Maximum": _merge(torch.maximum),
        "Minimum": _merge(torch.minimum), "Concatenate": _merge(lambda a, c: torch.cat([a, c], 1)),
        "Dot": lambda s: (Fn(lambda a, c: torch.bmm(a, c.transpose(1, 2))), [torch.randn(x[1]) for x in s]),
    }
    for part in (_conv_rows, _pool_rows, _norm_rows, _regularization_rows, _shape_rows, _recurrent_rows,
                 _attention_rows, _image_rows):
        b.update(part())
    return b


OPS_ROWS = {"UnitNormalization", "Normalization", "LayerScale", "CustomScaleLayer", "Permute", "RepeatVector",
            "Cropping1D", "Cropping2D", "Cropping3D", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
            "Concatenate", "Dot", "Attention", "AdditiveAttention", "GroupQueryAttention", "Rescaling", "Resizing",
            "CenterCrop", "Discretization", "RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells"}
