"""Translation of the window's text (Qt Linguist files in app/gui/resources/i18n).

Every string a user reads goes through `tr("…")` (or, for tables of constants, is marked
`QT_TR_NOOP("…")` where it is defined and passed through `tr` where it is shown), so
`pyside6-lupdate` finds them all (one context for the whole app: the same English text
always means the same thing here). Placeholders are `{name}` fields filled with
`.format()` after translation, never f-strings, which lupdate cannot see.

`tools/update_translations.py` re-extracts the strings into the `.ts` files and compiles
the `.qm` files the app loads; tests check both are complete and current.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator

log = logging.getLogger(__name__)

I18N_DIR = Path(__file__).resolve().parent / "resources" / "i18n"
# The languages shipped (besides English, the source language).
LANGUAGES = ("de",)


def QT_TR_NOOP(text: str) -> str:  # lupdate looks for this name
    """Marks `text` for translation where a table defines it; `tr` translates it where
    it is shown. (PySide6 has one too, typed as returning `object`.)"""
    return text


def tr(text: str) -> str:
    """`text` in the user's language (the English source when no translation has it)."""
    return QCoreApplication.translate("", text)


def install_translator(app: QCoreApplication, language: str | None = None) -> QTranslator | None:
    """Load the translation for `language` ("de"; None: the system's) into `app`.
    Returns the translator (keep it alive) or None when the language is English or not
    shipped."""
    locale = QLocale(language) if language else QLocale.system()
    translator = QTranslator(app)
    if translator.load(locale, "fusecam", "_", str(I18N_DIR)):
        app.installTranslator(translator)
        return translator
    if locale.language() != QLocale.Language.English:
        log.info("no translation for %s; showing English", locale.name())
    return None
