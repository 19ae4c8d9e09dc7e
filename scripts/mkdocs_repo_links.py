"""mkdocs hooks (mkdocs.yml ``hooks:``): the site's pages link as they do in the repository.

The pages are read on GitHub too, so each link is a path relative to the page's own place in
the repository: ``../models.md`` between pages, ``docs/user-guide.md#...`` from README.md,
``../../benchmarks/eda_throughput.py`` to a source file. On the site:

- README.md is the home page (``index.md``), read where it is: no copy to keep in step, and
  ``mkdocs serve`` reloads it (``watch:``).
- A link is resolved from the page's place in the repository. A page or file under docs/
  gets the path from the page's place on the site; mkdocs checks it, and its anchor, as it
  checks every link (``validation:``).
- A link to any other file of the repository becomes a link to that file under ``repo_url``
  when mkdocs.yml names one and the file exists. The project has no public address yet, so
  mkdocs.yml names none, and such a link (no page of the site holds the file) warns, as does a
  link to a file that does not exist: ``mkdocs build --strict`` fails naming it.
"""

from __future__ import annotations

import logging
import os
import posixpath
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

#: Under the ``mkdocs`` logger, so that ``--strict`` counts its warnings.
log = logging.getLogger("mkdocs.hooks.repo_links")

#: The home page, a path in the repository (the folder of mkdocs.yml).
HOME = "README.md"
#: The branch ``repo_url``'s source links point into.
BRANCH = "main"
#: The elements whose attribute holds a link: text links and images.
LINK_ATTRIBUTES = {"a": "href", "img": "src"}


class RepoLinksExtension(Extension):
    """Adds :class:`RepoLinks` to each Markdown instance mkdocs makes for a page."""

    def __init__(self, config: MkDocsConfig) -> None:
        super().__init__()
        self.config = config
        self.page: Page | None = None  # the page being rendered (on_page_markdown)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's name)
        # before mkdocs' own "relpath" (priority 0), which then checks the rewritten links
        md.treeprocessors.register(RepoLinks(md, self), "augkit_repo_links", 1.5)


class RepoLinks(Treeprocessor):
    """Rewrites the links of the page being rendered with :func:`site_link`."""

    def __init__(self, md: Markdown, extension: RepoLinksExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, root: Element) -> None:
        page = self.extension.page
        if page is None:  # Markdown rendered outside a page's own text
            return
        for element in root.iter():
            attribute = LINK_ATTRIBUTES.get(element.tag)
            link = element.get(attribute) if attribute else None
            if link:
                element.set(attribute, site_link(link, page, self.extension.config))


def site_link(link: str, page: Page, config: MkDocsConfig) -> str:
    """``link``, written for ``page``'s place in the repository, for its place on the site."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return link  # a web address, an anchor of this page, or a path of the site
    repo = repository(config)
    in_repo = Path(os.path.relpath(page.file.abs_src_path, repo)).as_posix()
    target = posixpath.normpath(posixpath.join(posixpath.dirname(in_repo), parts.path))
    anchor = f"#{parts.fragment}" if parts.fragment else ""
    docs = Path(os.path.relpath(config.docs_dir, repo)).as_posix()
    if target.startswith(f"{docs}/"):
        in_docs = posixpath.relpath(target, docs)
        return posixpath.relpath(in_docs, posixpath.dirname(page.file.src_uri) or ".") + anchor
    if target.startswith("../") or not (repo / target).exists():
        log.warning(f"{in_repo}: the link '{link}' names {target}, which is not in the repository")
        return link
    if not config.repo_url:
        log.warning(f"{in_repo}: the link '{link}' names {target}, a repository file outside {docs}/ that the "
                    "site does not hold; link to a page, or set repo_url in mkdocs.yml to link to its source")
        return link
    kind = "tree" if (repo / target).is_dir() else "blob"
    return f"{config.repo_url.rstrip('/')}/{kind}/{BRANCH}/{target}{anchor}"


def repository(config: MkDocsConfig) -> Path:
    """The repository's root: the folder of mkdocs.yml."""
    return Path(config.config_file_path).parent


_extension: RepoLinksExtension | None = None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _extension
    _extension = RepoLinksExtension(config)
    config.markdown_extensions.append(_extension)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """README.md, read in place, as the home page."""
    files.append(File.generated(config, "index.md", abs_src_path=str(repository(config) / HOME)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _extension.page = page  # its links are resolved from its place in the repository
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _extension.page = None
    return html
