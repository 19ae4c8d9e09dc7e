"""Discover plugins through the ``augkit`` entry-point group and collect what they register.

Built-in plugins (EDA and AEDA, built into the augkit distribution, and augkit's own filters)
are registered through entry points exactly like a third party's. A plugin that fails to import or whose hook
raises is reported (warning, and listed by ``augkit list``) and skipped, never fatal.
"""

from __future__ import annotations

import functools
import importlib.metadata
import warnings
from dataclasses import dataclass

import pluggy

from augkit.registry import hookspecs
from augkit.registry.registered import PluginInfo, Registry

ENTRY_POINT_GROUP = "augkit"


@dataclass(frozen=True)
class LoadedPlugins:
    manager: pluggy.PluginManager
    plugins: dict[str, PluginInfo]  # plugin name -> distribution info
    problems: list[str]


def load_plugins() -> LoadedPlugins:
    """Import every ``augkit`` entry point and register it with a fresh plugin manager."""
    manager = pluggy.PluginManager("augkit")
    manager.add_hookspecs(hookspecs)
    plugins: dict[str, PluginInfo] = {}
    problems: list[str] = []
    entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for entry_point in sorted(entry_points, key=lambda ep: ep.name):
        dist = entry_point.dist
        info = PluginInfo(
            name=entry_point.name,
            distribution=dist.name if dist else "?",
            version=dist.version if dist else "?",
        )
        if manager.has_plugin(entry_point.name) or manager.is_blocked(entry_point.name):
            continue
        try:
            module = entry_point.load()
            manager.register(module, name=entry_point.name)
        except Exception as error:  # a broken plugin must not take augkit down
            problems.append(f"plugin {info.name!r} ({info.distribution} {info.version}) failed to load: {error!r}")
            continue
        plugins[entry_point.name] = info
    return LoadedPlugins(manager, plugins, problems)


def build_registry(loaded: LoadedPlugins) -> Registry:
    """Call each plugin's hooks with a ``register`` callback that remembers the plugin."""
    registry = Registry(problems=list(loaded.problems))
    hooks = {
        "register_augmenters": registry.add_augmenter,
        "register_filters": registry.add_filter,
        "register_commands": registry.add_command,
        "register_training_targets": registry.add_training_target,
        "register_web_tabs": registry.add_web_tab,
    }
    for hook_name, add in hooks.items():
        caller = getattr(loaded.manager.hook, hook_name)
        for impl in caller.get_hookimpls():  # registration order (pluggy calls them in reverse)
            plugin = loaded.plugins.get(impl.plugin_name, PluginInfo(impl.plugin_name, "?", "?"))
            try:
                impl.function(register=functools.partial(add, plugin=plugin))
            except Exception as error:
                registry.problems.append(f"plugin {plugin.name!r} failed in {hook_name}: {error!r}")
    return registry


@functools.lru_cache(maxsize=1)
def get_registry() -> Registry:
    """The process-wide registry, built on first use (not at ``import augkit``)."""
    registry = build_registry(load_plugins())
    for problem in registry.problems:
        warnings.warn(f"augkit: {problem}; skipped", RuntimeWarning, stacklevel=2)
    return registry


def reset_registry() -> None:
    """Forget the registry so the next use rediscovers plugins (after installing one at
    run time, e.g. in a notebook or a test)."""
    get_registry.cache_clear()
    importlib.invalidate_caches()
