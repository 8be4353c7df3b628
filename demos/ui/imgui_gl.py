"""Dear ImGui's draw lists drawn with moderngl, into whatever framebuffer is bound.

imgui-bundle's own Python renderer draws through PyOpenGL on the window's context; this
one uses the moderngl context Lamina already renders with, so the same code draws the
panels into a glfw window and, headless, into an offscreen framebuffer under EGL (a
recording then shows what the window shows). Textures follow ImGui 1.92's protocol: the
renderer creates and updates them when ImGui asks (``renderer_has_textures``).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import moderngl
import numpy as np
from imgui_bundle import imgui

__all__ = ["ImGuiRenderer"]

_SHADERS = Path(__file__).resolve().parent / "shaders"


class ImGuiRenderer:
    """Draws ``imgui.get_draw_data()`` with ``ctx``; one per ImGui context."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self.program = ctx.program(vertex_shader=(_SHADERS / "imgui.vert").read_text(),
                                   fragment_shader=(_SHADERS / "imgui.frag").read_text())
        self.vertices = ctx.buffer(reserve=1 << 18, dynamic=True)
        self.indices = ctx.buffer(reserve=1 << 17, dynamic=True)
        # ImDrawVert: pos (2 floats), uv (2 floats), col (4 normalised bytes) = 20 bytes.
        self.vao = ctx.vertex_array(
            self.program,
            [(self.vertices, "2f 2f 4f1", "position", "uv", "color")],
            index_buffer=self.indices,
            index_element_size=imgui.INDEX_SIZE,
        )
        self.textures: dict[int, moderngl.Texture] = {}
        io = imgui.get_io()
        io.backend_flags |= imgui.BackendFlags_.renderer_has_textures
        limit = ctx.info["GL_MAX_TEXTURE_SIZE"]
        imgui.get_platform_io().renderer_texture_max_width = limit
        imgui.get_platform_io().renderer_texture_max_height = limit

    def _update_textures(self) -> None:
        for tex in imgui.get_platform_io().textures:
            if tex.status == imgui.ImTextureStatus.want_create:
                texture = self.ctx.texture((tex.width, tex.height), 4, np.asarray(tex.get_pixels_array()).tobytes())
                texture.filter = (moderngl.LINEAR, moderngl.LINEAR)
                texture.repeat_x = texture.repeat_y = False
                self.textures[texture.glo] = texture
                tex.set_tex_id(texture.glo)
                tex.status = imgui.ImTextureStatus.ok
            elif tex.status == imgui.ImTextureStatus.want_updates:
                # The atlas grew glyphs: upload it whole (a few hundred KB, rare).
                self.textures[tex.tex_id].write(np.asarray(tex.get_pixels_array()).tobytes())
                tex.status = imgui.ImTextureStatus.ok
            elif tex.status == imgui.ImTextureStatus.want_destroy:
                self.textures.pop(tex.tex_id).release()
                tex.set_tex_id(0)
                tex.status = imgui.ImTextureStatus.destroyed

    def render(self, framebuffer: moderngl.Framebuffer, size: tuple[int, int]) -> None:
        """Draw the current ImGui frame over what ``framebuffer`` (``size`` pixels) holds."""
        draw_data = imgui.get_draw_data()
        self._update_textures()
        width, height = size
        sx, sy = draw_data.framebuffer_scale
        dx, dy = draw_data.display_pos
        dw, dh = draw_data.display_size
        if width == 0 or height == 0 or dw == 0 or dh == 0:
            return
        framebuffer.use()
        ctx = self.ctx
        ctx.viewport = (0, 0, width, height)
        ctx.enable_only(moderngl.BLEND)
        # ImGui emits straight-alpha colours.
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
        ctx.blend_equation = moderngl.FUNC_ADD
        projection = np.array(
            [2 / dw, 0, 0, 0, 0, -2 / dh, 0, 0, 0, 0, -1, 0, -1 - 2 * dx / dw, 1 + 2 * dy / dh, 0, 1], dtype="f4"
        )
        self.program["projection"].write(projection.tobytes())
        try:
            for commands in draw_data.cmd_lists:
                vertex_bytes = ctypes.string_at(
                    commands.vtx_buffer.data_address(), commands.vtx_buffer.size() * imgui.VERTEX_SIZE
                )
                index_bytes = ctypes.string_at(
                    commands.idx_buffer.data_address(), commands.idx_buffer.size() * imgui.INDEX_SIZE
                )
                if len(vertex_bytes) > self.vertices.size:
                    self.vertices.orphan(len(vertex_bytes))
                if len(index_bytes) > self.indices.size:
                    self.indices.orphan(len(index_bytes))
                self.vertices.write(vertex_bytes)
                self.indices.write(index_bytes)
                for command in commands.cmd_buffer:
                    x0, y0, x1, y1 = command.clip_rect
                    x0, y0, x1, y1 = (x0 - dx) * sx, (y0 - dy) * sy, (x1 - dx) * sx, (y1 - dy) * sy
                    if x1 <= x0 or y1 <= y0:
                        continue
                    self.textures[command.tex_ref.get_tex_id()].use(0)
                    ctx.scissor = (int(x0), int(height - y1), int(x1 - x0), int(y1 - y0))
                    self.vao.render(moderngl.TRIANGLES, vertices=command.elem_count, first=command.idx_offset)
        finally:
            ctx.scissor = None
            ctx.disable(moderngl.BLEND)

    def release(self) -> None:
        for texture in self.textures.values():
            texture.release()
        self.textures.clear()
        self.vao.release()
        self.vertices.release()
        self.indices.release()
        self.program.release()
