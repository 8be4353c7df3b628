"""What the batch tests share: the serial reference (plain load_scene + render + save,
no lamina.batch involved), reading a folder's PNGs, and suite scenes to render."""

from __future__ import annotations

from pathlib import Path

from lamina import load_scene

SCENES = Path(__file__).resolve().parents[1] / "scenes"
ANIMATED = SCENES / "animation-transform.json"


def suite_scenes(n: int) -> list[Path]:
    """``n`` suite scenes, spread over the alphabet (so over the features)."""
    paths = sorted(SCENES.glob("*.json"))
    step = max(1, len(paths) // n)
    return paths[::step][:n]


def serial(folder: Path, scenes: list[Path] = (), animated: Path | None = None, frames: range = range(0),
           fps: float = 60.0) -> dict[str, bytes]:
    """The PNGs a plain serial loop writes: each scene at t=0 as NAME.png, each frame of
    ``animated`` as NAME-000123.png at t = frame / fps."""
    for path in scenes:
        load_scene(path).render(t=0.0).save(folder / f"{path.stem}.png")
    if animated is not None:
        scene = load_scene(animated)
        for i in frames:
            scene.render(t=i / fps).save(folder / f"{animated.stem}-{i:06d}.png")
    return pngs(folder)


def pngs(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder``, by name (temporary files included, so a test sees them)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
