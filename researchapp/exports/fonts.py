"""The PDF's font: Noto Sans CJK SC from a dependency of the project (``noto-cjk-sans-otc``), so that
Chinese text and ``[证据不足]`` render wherever the app runs, with or without system fonts.

The package ships the Noto Sans CJK collection (ten faces in one file). WeasyPrint would register
every face of a collection under the one ``@font-face`` family, Japanese and monospaced ones
included, so the Simplified Chinese face is cut out of it once, into a file of its own.
"""

from __future__ import annotations

import os
import tempfile
from importlib import resources
from pathlib import Path

from django.conf import settings
from fontTools.ttLib import TTCollection, TTFont

FAMILY = "Research Noto Sans CJK SC"  # the family the PDF names: only the project's font answers to it
FACE = "Noto Sans CJK SC"
PACKAGE, MODULE, COLLECTION_FILE = "noto-cjk-sans-otc", "noto_cjk_sans_otc", "NotoSansCJK-Regular.ttc"


class FontMissing(RuntimeError):
    """The project's CJK font is not installed: PDFs would show Chinese as empty boxes."""


def font_collection() -> Path:
    try:
        path = Path(str(resources.files(MODULE) / COLLECTION_FILE))
    except ModuleNotFoundError:
        raise FontMissing(f"The PDF font package {PACKAGE} is not installed: run `make install`.") from None
    if not path.is_file():
        raise FontMissing(f"The PDF font file {path} is missing; reinstall {PACKAGE}.")
    return path


def _face_index(collection: Path) -> int:
    faces = TTCollection(str(collection), lazy=True).fonts
    for index, face in enumerate(faces):
        if face["name"].getDebugName(1) == FACE:
            return index
    raise FontMissing(f"{collection} holds no {FACE} face.")


def _fonts_folder() -> Path:
    for folder in (Path(settings.VAR_DIR) / "fonts", Path(tempfile.gettempdir()) / "research-desk-fonts"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    raise FontMissing("No writable folder for the PDF font (RESEARCH_VAR_DIR or the temporary folder).")


def pdf_font() -> Path:
    """The Simplified Chinese face as a file of its own, cut from the collection the first time.

    Named after the collection's size, so an upgraded package gets a fresh cut; written to a
    temporary name and renamed, so two processes cutting at once never leave half a file.
    """
    collection = font_collection()
    target = _fonts_folder() / f"NotoSansCJKsc-Regular-{collection.stat().st_size}.otf"
    if not target.exists():
        face = TTFont(str(collection), fontNumber=_face_index(collection), lazy=True)
        partial = target.with_suffix(f".{os.getpid()}.part")
        face.save(str(partial))
        os.replace(partial, target)
    return target
