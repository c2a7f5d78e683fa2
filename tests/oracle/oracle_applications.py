"""keras.applications models as Keras 3.15 builds them (weights=None, the
smallest input each accepts, BatchNormalization statistics moved off their
initial values), sent both ways through .keras, legacy .h5 and .weights.h5
(model_roundtrip.py): Kiln's predictions to 1e-4 relative and its parameter
counts must equal Keras's, and Keras must load and predict Kiln's files alike.

CI runs one model of each family whose layer order or layers are special
(ResNet's shortcuts, InceptionV3's unscaled BatchNormalization, ConvNeXt's
LayerScale, InceptionResNetV2's CustomScaleLayer, MobileNetV2's depthwise
blocks, DenseNet's concatenations); KILN_ORACLE_APPS=all runs every class,
and KILN_ORACLE_APPS=ResNet50,VGG16 the ones named."""
import os

import keras

from model_roundtrip import Roundtrips

A = keras.applications
# class -> smallest input size Keras accepts with weights=None
ALL = {
    "ConvNeXtTiny": 32, "ConvNeXtSmall": 32, "ConvNeXtBase": 32, "ConvNeXtLarge": 32, "ConvNeXtXLarge": 32,
    "DenseNet121": 32, "DenseNet169": 32, "DenseNet201": 32,
    "EfficientNetB0": 32, "EfficientNetB1": 32, "EfficientNetB2": 32, "EfficientNetB3": 32,
    "EfficientNetB4": 32, "EfficientNetB5": 32, "EfficientNetB6": 32, "EfficientNetB7": 32,
    "EfficientNetV2B0": 32, "EfficientNetV2B1": 32, "EfficientNetV2B2": 32, "EfficientNetV2B3": 32,
    "EfficientNetV2S": 32, "EfficientNetV2M": 32, "EfficientNetV2L": 32,
    "InceptionV3": 75, "InceptionResNetV2": 75,
    "MobileNet": 32, "MobileNetV2": 32, "MobileNetV3Small": 32, "MobileNetV3Large": 32,
    "NASNetMobile": 32, "NASNetLarge": 32,
    "ResNet50": 32, "ResNet101": 32, "ResNet152": 32, "ResNet50V2": 32, "ResNet101V2": 32, "ResNet152V2": 32,
    "VGG16": 32, "VGG19": 32, "Xception": 71,
}
CI = ["ResNet50", "ResNet50V2", "InceptionV3", "ConvNeXtTiny", "InceptionResNetV2", "MobileNetV2", "DenseNet121"]


def selected():
    want = os.environ.get("KILN_ORACLE_APPS", "")
    if want == "all":
        return list(ALL)
    if want:
        names = [n.strip() for n in want.split(",") if n.strip()]
        unknown = [n for n in names if n not in ALL]
        if unknown:
            raise SystemExit("KILN_ORACLE_APPS: unknown classes %s" % unknown)
        return names
    return CI


def maker(cls):
    size = ALL[cls]
    # NASNet insists on 224x224 with include_top unless told otherwise; every
    # class builds its own classifier here, at the smallest size it accepts.
    return lambda: getattr(A, cls)(weights=None, input_shape=(size, size, 3), classes=10)


def run(o):
    r = Roundtrips(o, rtol=1e-4, atol=1e-6)
    names = selected()
    for cls in names:
        r.add(cls, maker(cls), batch=2, train=False)
    for cls in ALL:
        if cls not in names:
            o.uncovered.append((cls, "not in this run (KILN_ORACLE_APPS=all runs every class)"))
    r.check()
