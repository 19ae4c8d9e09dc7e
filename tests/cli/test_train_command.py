"""``augkit train TARGET``: a built-in command whose targets plugins register through the
``register_training_targets`` hook, several plugins side by side; without a target it lists
them, an unknown target gets "did you mean", a target's own parser reads its arguments."""

from __future__ import annotations

import pluggy
import pytest

import augkit
from augkit.registry import hookspecs
from augkit.registry.discovery import LoadedPlugins, build_registry
from augkit.registry.registered import PluginInfo


def _epochs_arguments(parser):
    parser.add_argument("--epochs", type=int, default=1)


def _run_printing(args):
    print(f"training for {args.epochs} epochs")
    return 0


class TargetPlugin:
    """A plugin registering the training targets given, as a third party's module would."""

    def __init__(self, *names, add_arguments=_epochs_arguments):
        self.names = names
        self.add_arguments = add_arguments

    @augkit.hookimpl
    def register_training_targets(self, register):
        for name in self.names:
            register(name, self.add_arguments, _run_printing, help=f"train a {name}")


def registry_of(**plugins):
    manager = pluggy.PluginManager("augkit")
    manager.add_hookspecs(hookspecs)
    for name, plugin in plugins.items():
        manager.register(plugin, name=name)
    return build_registry(LoadedPlugins(manager, {name: PluginInfo(name, f"dist-{name}", "1.0") for name in plugins}, []))


@pytest.fixture
def two_plugins(monkeypatch):
    from augkit.registry import discovery as plugins

    registry = registry_of(faq=TargetPlugin("paraphraser"), pointer=TargetPlugin("pointer"))
    monkeypatch.setattr(plugins, "get_registry", lambda: registry)
    return registry


def test_two_plugins_each_add_a_target_to_the_one_train_command(two_plugins, capsys):
    from augkit.cli.main import main

    assert two_plugins.problems == []
    assert {name: t.plugin.distribution for name, t in two_plugins.training_targets.items()} == {
        "paraphraser": "dist-faq", "pointer": "dist-pointer"}
    assert main(["train", "pointer", "--epochs", "3"]) == 0
    assert capsys.readouterr().out == "training for 3 epochs\n"
    assert main(["train", "paraphraser"]) == 0


def test_train_without_a_target_lists_the_targets(two_plugins, capsys):
    from augkit.cli.main import main

    assert main(["train"]) == 2
    err = capsys.readouterr().err
    assert "name a target" in err
    assert "paraphraser  dist-faq" in err and "pointer      dist-pointer  1.0      train a pointer" in err


def test_an_unknown_target_suggests_the_close_one_and_lists_all(two_plugins, capsys):
    from augkit.cli.main import main

    assert main(["train", "pointr", "--epochs", "3"]) == 2
    assert ("augkit: error: unknown training target 'pointr'; did you mean 'pointer'? available: paraphraser, pointer"
            in capsys.readouterr().err)


def test_help_of_train_and_of_a_target(two_plugins, capsys):
    from augkit.cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["train", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "targets:" in out and "pointer       train a pointer" in out
    with pytest.raises(SystemExit) as done:
        main(["train", "pointer", "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: augkit train pointer [-h] [--epochs EPOCHS]")


def test_a_target_name_taken_twice_keeps_the_first_and_reports_the_second():
    registry = registry_of(a=TargetPlugin("pointer"), b=TargetPlugin("pointer", "erap"))
    assert registry.training_targets["pointer"].plugin.name == "a"
    assert sorted(registry.training_targets) == ["erap", "pointer"]
    assert registry.problems == ["plugin 'b' (dist-b): training target name 'pointer' is already registered by plugin 'a'"]


def test_a_plugin_can_no_longer_take_the_train_command_name():
    class OldStyle:
        @augkit.hookimpl
        def register_commands(self, register):
            register("train", _epochs_arguments, _run_printing, help="old")

    registry = registry_of(old=OldStyle())
    assert registry.commands == {}
    assert "command name 'train' is a built-in command of augkit" in registry.problems[0]


def test_a_target_whose_arguments_fail_is_named_and_the_rest_keeps_working(monkeypatch, capsys):
    from augkit.cli.main import main
    from augkit.registry import discovery as plugins

    def failing(parser):
        raise RuntimeError("no arguments today")

    registry = registry_of(broken=TargetPlugin("broken", add_arguments=failing), fine=TargetPlugin("fine"))
    monkeypatch.setattr(plugins, "get_registry", lambda: registry)
    assert main(["train", "broken"]) == 1
    assert "training target 'broken' of plugin 'broken' (dist-broken) failed to add its arguments" in capsys.readouterr().err
    assert main(["train", "fine", "--epochs", "2"]) == 0


def test_no_targets_installed_says_so(monkeypatch, capsys):
    from augkit.cli.main import main
    from augkit.registry import discovery as plugins

    registry = registry_of()
    monkeypatch.setattr(plugins, "get_registry", lambda: registry)
    assert main(["train"]) == 2
    assert "no training targets are installed" in capsys.readouterr().err
