import warp as wp


@wp.kernel
def shade(img: wp.array(dtype=float)):
    i = wp.tid()
    img[i] = img[i] * 0.5


def render(n):
    img = wp.zeros(n, dtype=float)
    wp.launch(shade, dim=n, inputs=[img])
