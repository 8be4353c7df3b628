"""glfw's input events handed to Dear ImGui, and the demos' standard keys.

A key goes to ImGui first; when ImGui does not want the keyboard (no text field has
focus) the runner's keys act: H, Space, Right, R, S, Esc, and Ctrl with =, - or 0 (the
UI scale; the keypad's + and - too, and = with Shift, which is + on a US keyboard).
"""

from __future__ import annotations

from typing import Any, Protocol

import glfw
from imgui_bundle import imgui

__all__ = ["install_input", "RUNNER_KEYS", "CTRL_KEYS", "KeyTarget"]


class KeyTarget(Protocol):
    """What input is delivered to (the Runner): its window, and its standard keys."""

    window: Any

    def key(self, name: str) -> None: ...

RUNNER_KEYS = {
    glfw.KEY_H: "H",
    glfw.KEY_SPACE: "Space",
    glfw.KEY_RIGHT: "Right",
    glfw.KEY_R: "R",
    glfw.KEY_S: "S",
    glfw.KEY_ESCAPE: "Escape",
}

# Keys that act with Ctrl held (as a browser's zoom keys do).
CTRL_KEYS = {
    glfw.KEY_EQUAL: "Ctrl+=",
    glfw.KEY_KP_ADD: "Ctrl+=",
    glfw.KEY_MINUS: "Ctrl+-",
    glfw.KEY_KP_SUBTRACT: "Ctrl+-",
    glfw.KEY_0: "Ctrl+0",
    glfw.KEY_KP_0: "Ctrl+0",
}

_IMGUI_KEYS = {
    glfw.KEY_TAB: imgui.Key.tab,
    glfw.KEY_LEFT: imgui.Key.left_arrow,
    glfw.KEY_RIGHT: imgui.Key.right_arrow,
    glfw.KEY_UP: imgui.Key.up_arrow,
    glfw.KEY_DOWN: imgui.Key.down_arrow,
    glfw.KEY_HOME: imgui.Key.home,
    glfw.KEY_END: imgui.Key.end,
    glfw.KEY_DELETE: imgui.Key.delete,
    glfw.KEY_BACKSPACE: imgui.Key.backspace,
    glfw.KEY_ENTER: imgui.Key.enter,
    glfw.KEY_ESCAPE: imgui.Key.escape,
    glfw.KEY_SPACE: imgui.Key.space,
    glfw.KEY_LEFT_CONTROL: imgui.Key.left_ctrl,
    glfw.KEY_RIGHT_CONTROL: imgui.Key.right_ctrl,
    glfw.KEY_LEFT_SHIFT: imgui.Key.left_shift,
    glfw.KEY_RIGHT_SHIFT: imgui.Key.right_shift,
    glfw.KEY_A: imgui.Key.a,
    glfw.KEY_C: imgui.Key.c,
    glfw.KEY_V: imgui.Key.v,
    glfw.KEY_X: imgui.Key.x,
    glfw.KEY_Z: imgui.Key.z,
}


def install_input(runner: KeyTarget) -> None:
    """Route the runner window's glfw events to ImGui and the runner's keys."""
    window = runner.window
    io = imgui.get_io()

    def on_cursor(_window, x: float, y: float) -> None:
        io.add_mouse_pos_event(float(x), float(y))

    def on_button(_window, button: int, action: int, _mods: int) -> None:
        if 0 <= button < 5:
            io.add_mouse_button_event(button, action == glfw.PRESS)

    def on_scroll(_window, dx: float, dy: float) -> None:
        io.add_mouse_wheel_event(float(dx), float(dy))

    def on_char(_window, codepoint: int) -> None:
        io.add_input_character(codepoint)

    def on_key(_window, key: int, _scancode: int, action: int, mods: int) -> None:
        if action not in (glfw.PRESS, glfw.RELEASE):
            return
        down = action == glfw.PRESS
        io.add_key_event(imgui.Key.mod_ctrl, bool(mods & glfw.MOD_CONTROL))
        io.add_key_event(imgui.Key.mod_shift, bool(mods & glfw.MOD_SHIFT))
        if key in _IMGUI_KEYS:
            io.add_key_event(_IMGUI_KEYS[key], down)
        if not down or io.want_text_input:
            return
        if mods & glfw.MOD_CONTROL and key in CTRL_KEYS:
            runner.key(CTRL_KEYS[key])
        elif key in RUNNER_KEYS:
            runner.key(RUNNER_KEYS[key])

    glfw.set_cursor_pos_callback(window, on_cursor)
    glfw.set_mouse_button_callback(window, on_button)
    glfw.set_scroll_callback(window, on_scroll)
    glfw.set_char_callback(window, on_char)
    glfw.set_key_callback(window, on_key)
