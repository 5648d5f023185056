import warp as wp

wp.config.enable_backward = False  # nothing here is differentiated

from contacts.narrow import NarrowPhase  # noqa: E402 - after the option, as it must be
from contacts.pipeline import Pipeline  # noqa: E402

wp.init()

standalone = NarrowPhase()
pipeline = Pipeline()
for _step in range(3):
    a = standalone.launch(8)
    b = pipeline.collide(8)
print(int(a.count.numpy()[0]), int(b.count.numpy()[0]))
