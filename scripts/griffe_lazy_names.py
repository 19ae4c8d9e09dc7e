"""A griffe extension (mkdocs.yml, mkdocstrings' ``extensions``): the names a module loads on
first access, shown in the API reference as the module gives them.

``augkit.plugin`` and ``augkit.models`` keep their heavy names (the model runtime, training,
tables) out of the import: a dict maps each name to the module defining it, and the module's
``__getattr__`` imports that module when the name is first read (``augkit.plugin`` also adds
the dict's keys to ``__all__``). griffe reads the source without running it, so it sees
neither the names nor, in ``__all__``, more than ``*_LAZY``. This extension reads each dict
from the module's source and adds every name as an alias of its definition, so that the
reference lists every name a plugin author can import, and a name whose module moved fails
the build (an alias that does not resolve) instead of vanishing from the page.
"""

from __future__ import annotations

import ast
from typing import Any

import griffe

logger = griffe.get_logger("griffe_lazy_names")

#: Each module with names loaded on first access, and the dict naming their modules. A value
#: is a module path (``"augkit.models"``) or, without the package's name in front, a
#: submodule of the module itself (``augkit.models``' ``"loading"``).
LAZY_TABLES = {
    "augkit.plugin": "_LAZY",
    "augkit.models": "_MODULE_OF",
}


def lazy_table(module: griffe.Module, variable: str) -> dict[str, str]:
    """The dict literal assigned to ``variable`` at the top of ``module``'s source."""
    tree = ast.parse(module.filepath.read_text(encoding="utf-8"))
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        if any(isinstance(target, ast.Name) and target.id == variable for target in targets):
            return ast.literal_eval(statement.value)
    raise LookupError(f"{module.path}: no top-level assignment to {variable}")


class LazyNames(griffe.Extension):
    """Adds each module's lazily loaded names as aliases, and to its ``__all__``."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        added = []
        for path, variable in LAZY_TABLES.items():
            if path.partition(".")[0] != pkg.path:
                continue
            module = loader.modules_collection[path]
            table = lazy_table(module, variable)
            for name, home in table.items():
                if not home.startswith(f"{pkg.path}.") and home != pkg.path:
                    home = f"{path}.{home}"
                if name not in module.members:
                    module.set_member(name, griffe.Alias(name, f"{home}.{name}", parent=module))
                    added.append(module.members[name])
            # ``__all__ = [..., *_LAZY]`` reaches griffe as the bare name of the dict: its keys
            exports = list(module.exports or ())
            if variable in map(str, exports):
                listed = [name for name in exports if str(name) != variable]
                module.exports = listed + [name for name in table if name not in listed]
        for alias in added:  # once every table's names are there: one may lead to another
            try:
                alias.final_target
            except griffe.AliasResolutionError:
                # mkdocstrings would leave it out of the page without a word
                logger.warning(f"{alias.path}: {alias.target_path} is not a name griffe can read")
