"""The real-size CNNs of bench/cnn_models.h, for the peers: Keras 3 (any
backend, channels_last) and PyTorch (NCHW). Both must change with the C++ file.

resnet: 32x32x3, stem Conv(w0)+BN+relu, 3 stages of 2 residual blocks
        (w0, 2*w0, 4*w0 channels; the first block of stages 2 and 3 halves the
        size and takes a 1x1 strided projection shortcut), global average
        pooling, Dense(10); convolutions without bias (BN follows).
vgg:    64x64x3, [Conv(64) Conv(64) MaxPool] [Conv(128) Conv(128) MaxPool]
        [Conv(256) Conv(256) MaxPool] (3x3 same, relu), Flatten, Dense(256, relu), Dense(10).
bigcnn: 28x28x1, the TF CNN tutorial's 3 valid convolutions, Dense(64, relu), Dense(10).
"""

SHAPES = {"resnet": (32, 32, 3), "vgg": (64, 64, 3), "bigcnn": (28, 28, 1)}
BATCH = {"resnet": 128, "vgg": 64, "bigcnn": 128}
STEPS = {"train": {"resnet": 8, "vgg": 8, "bigcnn": 40}, "infer": {"resnet": 16, "vgg": 16, "bigcnn": 40}}


def keras_model(keras, name, w0=64):
    L = keras.layers
    if name == "resnet":
        inp = keras.Input(SHAPES[name])

        def conv_bn(x, ch, stride, relu):
            y = L.Conv2D(ch, 3, strides=stride, padding="same", use_bias=False)(x)
            y = L.BatchNormalization()(y)
            return L.Activation("relu")(y) if relu else y

        x = conv_bn(inp, w0, 1, True)
        ch = w0
        for stage in range(3):
            for block in range(2):
                stride = 2 if stage > 0 and block == 0 else 1
                shortcut = x
                if stride != 1:
                    shortcut = L.Conv2D(ch, 1, strides=stride, use_bias=False)(x)
                y = conv_bn(conv_bn(x, ch, stride, True), ch, 1, False)
                x = L.Activation("relu")(L.Add()([y, shortcut]))
            ch *= 2
        return keras.Model(inp, L.Dense(10)(L.GlobalAveragePooling2D()(x)))
    if name == "vgg":
        layers = [keras.Input(SHAPES[name])]
        for ch in (64, 128, 256):
            layers += [L.Conv2D(ch, 3, padding="same", activation="relu"),
                       L.Conv2D(ch, 3, padding="same", activation="relu"), L.MaxPooling2D()]
        return keras.Sequential(layers + [L.Flatten(), L.Dense(256, activation="relu"), L.Dense(10)])
    if name == "bigcnn":
        return keras.Sequential([
            keras.Input(SHAPES[name]),
            L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(),
            L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(),
            L.Conv2D(64, 3, activation="relu"), L.Flatten(),
            L.Dense(64, activation="relu"), L.Dense(10),
        ])
    raise ValueError(name)


def forward_flops(keras, name):
    """Multiply-adds x 2 of the convolutions and dense layers, per sample."""
    model = keras_model(keras, name)
    total = 0
    for layer in model.layers:
        if isinstance(layer, keras.layers.Conv2D):
            _, h, w, cout = layer.output.shape
            kh, kw, cin, _ = layer.kernel.shape
            total += 2 * h * w * kh * kw * cin * cout
        elif isinstance(layer, keras.layers.Dense):
            cin, cout = layer.kernel.shape
            total += 2 * cin * cout
    return total


def torch_model(torch, name, w0=64):
    nn = torch.nn

    def bn(ch):  # Keras's BatchNormalization defaults: momentum 0.99, epsilon 1e-3
        return nn.BatchNorm2d(ch, eps=1e-3, momentum=0.01)

    if name == "resnet":
        class Block(nn.Module):
            def __init__(self, cin, ch, stride):
                super().__init__()
                self.body = nn.Sequential(nn.Conv2d(cin, ch, 3, stride, 1, bias=False), bn(ch), nn.ReLU(),
                                          nn.Conv2d(ch, ch, 3, 1, 1, bias=False), bn(ch))
                self.shortcut = nn.Conv2d(cin, ch, 1, stride, bias=False) if stride != 1 else nn.Identity()

            def forward(self, x):
                return torch.relu(self.body(x) + self.shortcut(x))

        blocks = [nn.Conv2d(3, w0, 3, 1, 1, bias=False), bn(w0), nn.ReLU()]
        cin, ch = w0, w0
        for stage in range(3):
            for block in range(2):
                blocks.append(Block(cin, ch, 2 if stage > 0 and block == 0 else 1))
                cin = ch
            ch *= 2
        return nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10))
    if name == "vgg":
        layers, cin = [], 3
        for ch in (64, 128, 256):
            layers += [nn.Conv2d(cin, ch, 3, 1, 1), nn.ReLU(), nn.Conv2d(ch, ch, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2)]
            cin = ch
        return nn.Sequential(*layers, nn.Flatten(), nn.Linear(256 * 8 * 8, 256), nn.ReLU(), nn.Linear(256, 10))
    if name == "bigcnn":
        return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Conv2d(64, 64, 3), nn.ReLU(), nn.Flatten(),
                             nn.Linear(64 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, 10))
    raise ValueError(name)
