"""Small template helpers for the desk's pages."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def web_url(url: str) -> str:
    """The URL if it is http(s), else "": stored URLs come from outside and must not become
    ``javascript:`` links."""
    url = (url or "").strip()
    return url if url.lower().startswith(("http://", "https://")) else ""


# --- fragments cached on a revision ----------------------------------------------------------------

# What a cached fragment holds where a form's CSRF token goes: every request gets its own token in.
CSRF_PLACEHOLDER = "__desk_fragment_csrf_token__"
FRAGMENT_SECONDS = 60 * 60


class CachedFragmentNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str, key: template.base.FilterExpression) -> None:
        self.nodelist, self.name, self.key = nodelist, name, key

    def render(self, context: template.Context) -> str:
        key = self.key.resolve(context, ignore_failures=True)
        if not key:
            return self.nodelist.render(context)
        zone = timezone.get_current_timezone_name()
        # What the desk runs with shows in some fragments (the engine, whether the web is searched),
        # and the cache outlives a restart with another configuration.
        desk = f"{settings.PROFILE}:{settings.RESEARCH['ENGINE']}:{settings.RESEARCH['SEARCH_PROVIDER']}"
        cache_key = f"desk-fragment:{self.name}:{translation.get_language()}:{zone}:{desk}:{key}"
        html = cache.get(cache_key)
        if html is None:
            with context.push(csrf_token=CSRF_PLACEHOLDER):
                html = str(self.nodelist.render(context))
            cache.set(cache_key, html, FRAGMENT_SECONDS)
        token = context.get("csrf_token")
        return mark_safe(html.replace(CSRF_PLACEHOLDER, str(token) if token else ""))


@register.tag
def cachedfragment(parser: template.base.Parser, token: template.base.Token) -> CachedFragmentNode:
    """``{% cachedfragment "name" key %}…{% endcachedfragment %}``: the block as rendered for ``key``,
    in the reader's language and time zone and the desk's configuration (profile, engine, search), from
    the cache; rendered (and stored) when it is not there, and always when ``key`` is empty. The key is
    the view's to make: it must change whenever anything the block shows does (``web.fragment_key``),
    and nothing in the block may differ between readers but the CSRF token of its forms, which each
    request gets its own of. Variables only the block uses can be lazy: on a hit they are never read."""
    bits = token.split_contents()
    if len(bits) != 3:
        raise template.TemplateSyntaxError(f"{bits[0]} takes a quoted name and a key")
    nodelist = parser.parse(("endcachedfragment",))
    parser.delete_first_token()
    return CachedFragmentNode(nodelist, bits[1].strip("\"'"), parser.compile_filter(bits[2]))
