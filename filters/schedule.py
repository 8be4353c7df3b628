"""Running a FilterPlan's passes in order over pooled images, releasing each image after
its last reader: the one schedule both executors (filters.gl, filters.opencl) follow."""

from __future__ import annotations

from typing import Callable, TypeVar

from .plan import FilterPlan, PlannedPass, image_size

__all__ = ["run_plan"]

Image = TypeVar("Image")


def run_plan(
    plan: FilterPlan,
    source: Image,
    width: int,
    height: int,
    acquire: Callable[[int, int], Image],
    release: Callable[[Image], None],
    run_pass: Callable[[PlannedPass, list, Image], None],
) -> Image:
    """Run every pass; return the image holding ``plan.output`` (the caller releases it;
    it is ``source`` itself when the plan has no passes). On an error every image made
    here is released."""
    images = {"source": source}
    last_use = {name: i for i, p in enumerate(plan.passes) for name in p.inputs}
    try:
        for i, p in enumerate(plan.passes):
            target = images[p.output] = acquire(*image_size(width, height, p.scale))
            run_pass(p, [images[n] for n in p.inputs], target)
            for name in dict.fromkeys(p.inputs):  # a shadow may read one image twice
                if last_use[name] == i and name not in ("source", plan.output):
                    release(images.pop(name))
    except BaseException:
        for name, image in images.items():
            if name != "source":
                release(image)
        raise
    return images[plan.output]
