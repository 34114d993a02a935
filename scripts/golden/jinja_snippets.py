#!/usr/bin/env python3
"""Expected outputs of small Jinja2 snippets, one language feature each, for JinjaSnippetsTest.

Renders every snippet of SNIPPETS below with Python's Jinja2 configured as transformers configures
it (the same environment as chat_templates.py: ImmutableSandboxedEnvironment(trim_blocks=True,
lstrip_blocks=True), loopcontrols, tojson = json.dumps(ensure_ascii=False, ...), raise_exception,
strftime_now at the fixed time 2025-03-14T15:09:26) and writes
src/test/resources/golden/jinja-snippets.json: a list of
{"feature", "template", "vars", "output"} or {..., "error": "<ExceptionType>: <message>"} (a
raise_exception error holds just its message). Usage: python3 scripts/golden/jinja_snippets.py
"""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chat_templates  # noqa: E402

ROOT = chat_templates.ROOT
OUT = os.path.join(ROOT, "src", "test", "resources", "golden", "jinja-snippets.json")

MSGS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f",
         "arguments": {"a": 1}}}]}]

# (feature, template, vars)
SNIPPETS = [
    # --- text and whitespace control ---
    ("text", "plain text", {}),
    ("text", "a {# comment #} b", {}),
    ("whitespace", "a  {{- 'x' -}}  b", {}),
    ("whitespace", "a\n  {%- if true %}x{% endif %}\nb", {}),
    ("whitespace", "line\n    {% if true %}\nyes\n    {% endif %}\nend", {}),
    ("whitespace", "  {{ 'v' }}\n  {% if true %}a{% endif %}  \nz", {}),
    ("whitespace", "{% if true %}\n\nx{% endif %}\n\ny", {}),
    ("whitespace", "a\n  {%+ if true %}x{% endif +%}\nb", {}),
    ("whitespace", "{# c #}\nx\n  {# c2 #}\ny", {}),
    ("whitespace", "x {%- if true -%} y {%- endif -%} z", {}),
    ("whitespace", "trailing newline dropped\n", {}),
    ("whitespace", "only one dropped\n\n", {}),
    ("whitespace", "a\r\n{% if true %}\r\nb{% endif %}", {}),
    ("raw", "{% raw %}{{ not rendered }} {% if %}{% endraw %}!", {}),
    ("raw", "{%- raw -%}  x  {%- endraw -%}  !", {}),
    # --- literals and printing ---
    ("print", "{{ none }}|{{ None }}|{{ true }}|{{ False }}|{{ 1 }}|{{ 1.0 }}|{{ 1.5e3 }}|{{ 0.1 + 0.2 }}", {}),
    ("print", "{{ [1, 'a', none, true, 2.5] }}", {}),
    ("print", "{{ {'a': 1, 'b': [none], 'c': {'d': 'it\\'s'}} }}", {}),
    ("print", "{{ (1, 2) }}|{{ () }}", {}),
    ("print", "{{ 'a' 'b' }}|{{ \"q\\\"uote\" }}|{{ 'tab\\tnl\\n' }}", {}),
    ("print", "{{ x }}", {"x": "it's \"quoted\""}),
    ("print", "{{ [x] }}", {"x": "it's"}),
    ("print", "{{ [x] }}", {"x": "both ' and \""}),
    ("print", "{{ [x] }}", {"x": "back\\slash\nnl"}),
    ("print", "{{ 1e20 }}|{{ 1e-7 }}|{{ 123456789.125 }}|{{ -0.0 }}|{{ 2**0.5 }}", {}),
    ("print", "{{ big }}|{{ 10 / 4 }}|{{ 10 // 4 }}|{{ 2 ** 10 }}", {"big": 12345678901234}),
    # --- undefined and none ---
    ("undefined", "[{{ missing }}]|{{ missing is defined }}|{{ missing is undefined }}|{{ missing is none }}", {}),
    ("undefined", "{{ x is none }}|{{ x is defined }}|{{ x|default('d') }}|{{ x|default('d', true) }}", {"x": None}),
    ("undefined", "{{ missing|default('d') }}|{{ ''|default('d') }}|{{ ''|default('d', true) }}", {}),
    ("undefined", "{{ not missing is defined }}|{{ not x is none }}", {"x": None}),
    ("undefined", "{{ missing + 1 }}", {}),
    ("undefined", "{{ 'a' + missing }}", {}),
    ("undefined", "{{ 'a' ~ missing ~ 'b' }}", {}),
    ("undefined", "{{ missing.attr }}", {}),
    ("undefined", "{{ d.nokey }}", {"d": {"a": 1}}),
    ("undefined", "[{{ d.nokey }}]{{ d.nokey is defined }}", {"d": {"a": 1}}),
    ("undefined", "{{ d.nokey.deeper }}", {"d": {"a": 1}}),
    ("undefined", "{{ l[5] is defined }}|[{{ l[5] }}]", {"l": [1]}),
    ("undefined", "{% for x in missing %}x{% else %}empty{% endfor %}|{{ missing|length }}", {}),
    ("undefined", "{{ missing == missing }}|{{ missing == none }}|{{ missing|string }}|{{ missing|list }}", {}),
    ("undefined", "{{ missing < 1 }}", {}),
    ("undefined", "{{ missing() }}", {}),
    ("undefined", "{{ x.startswith('a') }}", {"x": None}),
    ("undefined", "{{ none|string }}|{{ none|tojson }}|{{ [none]|tojson }}", {}),
    ("undefined", "{{ missing|tojson }}", {}),
    ("undefined", "{{ (missing if false) is defined }}|[{{ 'x' if false }}]", {}),
    # --- operators ---
    ("operators", "{{ 1 + 2 }}|{{ 1 + 2.0 }}|{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ true + 1 }}", {}),
    ("operators", "{{ 7 - 10 }}|{{ 3 * 'ab' }}|{{ 'ab' * 2 }}|{{ [0] * 3 }}|{{ 7 / 2 }}|{{ -7 // 2 }}|{{ -7 % 3 }}|{{ 7.5 % 2 }}", {}),
    ("operators", "{{ 2 ** 3 ** 2 }}|{{ -2 ** 2 }}|{{ (-2) ** 2 }}|{{ 2 ** -1 }}", {}),
    ("operators", "{{ 'a' ~ 1 ~ none ~ true ~ [1] }}", {}),
    ("operators", "{{ 1 + 2 ~ 3 }}|{{ 1 ~ 2 * 3 }}", {}),
    ("operators", "{{ 'x' + 1 }}", {}),
    ("operators", "{{ 'x' + {} }}", {}),
    ("operators", "{{ [1] + 'x' }}", {}),
    ("operators", "{{ 1 + 'x' }}", {}),
    ("operators", "{{ 1 / 0 }}", {}),
    ("operators", "{{ 1 and 2 }}|{{ 0 and 2 }}|{{ 0 or 'x' }}|{{ '' or [] }}|{{ not 0 }}|{{ not 'a' }}", {}),
    ("operators", "{{ 'a' if 0 else 'b' }}|{{ 'a' if 1 }}|{{ 1 if 0 else 2 if 0 else 3 }}", {}),
    ("compare", "{{ 1 == 1.0 }}|{{ true == 1 }}|{{ 'a' == 'a' }}|{{ [1, 2] == [1, 2] }}|{{ {'a': 1} == {'a': 1.0} }}|{{ none == none }}|{{ 1 != 2 }}", {}),
    ("compare", "{{ 1 < 2 < 3 }}|{{ 3 > 2 > 2 }}|{{ 'a' < 'b' }}|{{ [1, 2] < [1, 3] }}|{{ 2.5 >= 2 }}", {}),
    ("compare", "{{ 1 < 'a' }}", {}),
    ("compare", "{{ 'b' in 'abc' }}|{{ 2 in [1, 2] }}|{{ 'k' in {'k': 1} }}|{{ 3 not in [1] }}|{{ not 3 in [1] }}", {}),
    ("compare", "{{ 'a' in none }}", {}),
    ("compare", "{{ 1 in 'abc' }}", {}),
    ("compare", "{{ 'a' in missing }}", {}),
    # --- subscripts and slices ---
    ("subscript", "{{ l[0] }}|{{ l[-1] }}|{{ l[1:] }}|{{ l[:-1] }}|{{ l[::2] }}|{{ l[::-1] }}|{{ l[-2:] }}|{{ l[5:] }}|{{ l[1:3:1] }}", {"l": [1, 2, 3, 4]}),
    ("subscript", "{{ s[0] }}|{{ s[-1] }}|{{ s[1:3] }}|{{ s[::-1] }}|{{ s[::2] }}", {"s": "h\u00e9llo \U0001F44B"}),
    ("subscript", "{{ d['a'] }}|{{ d.a }}|{{ d['b']['c'] }}|{{ d.b.c }}|{{ l.0 }}", {"d": {"a": 1, "b": {"c": 2}}, "l": ["z"]}),
    ("subscript", "{{ d.items is callable }}|{{ d.items is defined }}", {"d": {"items": 1}}),
    ("subscript", "{{ d['items'] }}|{{ d.get('items') }}", {"d": {"items": 1}}),
    ("subscript", "{{ l[0:10:0] }}", {"l": [1]}),
    ("subscript", "{{ 'abc'['x'] }}", {}),
    ("subscript", "{{ l[k] }}", {"l": [1], "k": "x"}),
    # --- strings ---
    ("str methods", "{{ s.strip() }}|{{ s.lstrip() }}|{{ s.rstrip() }}|{{ 'xxaxx'.strip('x') }}|{{ '\u00a0a\u3000'.strip() }}", {"s": "  \tpad\n "}),
    ("str methods", "{{ 'a,b,,c'.split(',') }}|{{ ' a  b\tc\n'.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ ''.split() }}|{{ ''.split(',') }}", {}),
    ("str methods", "{{ 'Hello'.startswith('He') }}|{{ 'Hello'.endswith('lo') }}|{{ 'Hello'.startswith(('x', 'H')) }}", {}),
    ("str methods", "{{ 'hello world'.title() }}|{{ 'aBc'.upper() }}|{{ 'AbC'.lower() }}|{{ 'hello World'.capitalize() }}|{{ \"it's a-b\".title() }}", {}),
    ("str methods", "{{ 'aaa'.replace('a', 'b') }}|{{ 'aaa'.replace('a', 'b', 2) }}|{{ 'abc'.replace('', '-') }}", {}),
    ("str methods", "{{ '-'.join(['a', 'b']) }}|{{ ''.join('abc') }}|{{ ', '.join(d) }}", {"d": {"x": 1, "y": 2}}),
    ("str methods", "{{ '-'.join([1, 2]) }}", {}),
    ("str methods", "{{ '{} and {}'.format('a', 1) }}|{{ '{0}{0}{1}'.format('x', none) }}|{{ '{n}!'.format(n=3) }}|{{ '{{}}'.format() }}", {}),
    ("str methods", "{{ 'banana'.count('a') }}|{{ 'banana'.find('n') }}|{{ 'banana'.find('z') }}|{{ 'banana'.rfind('a') }}|{{ 'banana'.index('b') }}", {}),
    ("str methods", "{{ 'a\\nb\\r\\nc'.splitlines() }}|{{ '123'.isdigit() }}|{{ 'ab'.isalpha() }}|{{ ' '.isspace() }}", {}),
    ("str methods", "{{ s.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') }}", {"s": "<think>\nreason\n</think>\n\nanswer"}),
    ("str methods", "{{ '你a b'.title() }}|{{ '1st ßx'.title() }}|{{ 'ß'.upper() }}|{{ 'ǆa'.title() }}|{{ 'İ'.lower()|length }}", {}),
    ("operators", "{{ 2 ** 62 }}|{{ (-1) ** 5 }}|{{ 0 ** 0 }}|{{ 1 ** 100000 }}", {}),
    ("str methods", "{{ 'x'.nosuch }}|{{ 'x'.nosuch is defined }}", {}),
    ("str methods", "{{ s.__class__ }}", {"s": "x"}),
    # --- dict and list methods ---
    ("dict methods", "{{ d.items() | list }}|{{ d.keys() | list }}|{{ d.values() | list }}|{{ d.get('a') }}|{{ d.get('z') }}|{{ d.get('z', 5) }}", {"d": {"a": 1, "b": 2}}),
    ("dict methods", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {"d": {"a": 1, "b": [2]}}),
    ("dict methods", "{{ d.update({'x': 1}) }}", {"d": {"a": 1}}),
    ("list methods", "{{ l.append(1) }}", {"l": []}),
    ("list methods", "{{ l.pop() }}", {"l": [1]}),
    ("list methods", "{{ l.index(2) }}|{{ l.count(1) }}", {"l": [1, 2, 1]}),
    # --- if / for ---
    ("if", "{% if 0 %}a{% elif '' %}b{% elif [1] %}c{% else %}d{% endif %}", {}),
    ("if", "{% if x %}t{% else %}f{% endif %}{% if y %}t{% else %}f{% endif %}{% if z %}t{% else %}f{% endif %}", {"x": {}, "y": [0], "z": 0.0}),
    ("for", "{% for x in l %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{% if not loop.last %},{% endif %}{% endfor %}", {"l": ["a", "b", "c"]}),
    ("for", "{% for x in l %}[{{ loop.previtem }}|{{ x }}|{{ loop.nextitem }}]{% endfor %}", {"l": [1, 2, 3]}),
    ("for", "{% for x in l %}{{ loop.previtem is defined }}{{ loop.nextitem is defined }} {% endfor %}", {"l": [1, 2]}),
    ("for", "{% for x in l %}{{ loop.cycle('odd', 'even') }} {% endfor %}", {"l": [1, 2, 3]}),
    ("for", "{% for x in l if x % 2 %}{{ x }}{{ loop.index }}{{ loop.length }} {% endfor %}", {"l": [1, 2, 3, 4, 5]}),
    ("for", "{% for x in [] %}x{% else %}none{% endfor %}|{% for x in [1] %}{{ x }}{% else %}none{% endfor %}", {}),
    ("for", "{% for c in 'h\u00e9' %}<{{ c }}>{% endfor %}|{% for k in {'a': 1, 'b': 2} %}{{ k }}{% endfor %}", {}),
    ("for", "{% for a, b in [[1, 2], [3, 4]] %}{{ a }}{{ b }}{% endfor %}|{% for (a, b) in [(1, 2)] %}{{ a + b }}{% endfor %}", {}),
    ("for", "{% for x in l %}{% for y in l %}{{ loop.index }}{% endfor %}{{ loop.index }};{% endfor %}", {"l": [1, 2]}),
    ("for", "{% for x in [1, 2, 3, 4] %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %}", {}),
    ("for", "{% for x in 5 %}{% endfor %}", {}),
    ("for", "{% for x in none %}{% endfor %}", {}),
    ("for", "{% for x in l %}{{ x.a }}{% endfor %}", {"l": [{"a": 1}, {"b": 2}]}),
    ("scope", "{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}|{{ x }}", {}),
    ("scope", "{% for i in [1, 2] %}{% if loop.first %}{% set y = 5 %}{% endif %}[{{ y }}]{% endfor %}", {}),
    ("scope", "{% if true %}{% set x = 2 %}{% endif %}{{ x }}", {}),
    ("scope", "{% set ns = namespace(n=0, found=false) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% if i == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.n }}{{ ns.found }}", {}),
    ("scope", "{% set ns = namespace() %}{{ ns.missing is defined }}{% set ns.x = [1] %}{{ ns.x }}", {}),
    ("scope", "{% set d = {} %}{% set d.x = 1 %}", {}),
    ("set", "{% set a, b = 1, 2 %}{{ a }}{{ b }}|{% set t = 1, 2 %}{{ t }}", {}),
    ("set", "{% set body %}\n  x {{ 1 + 1 }}\n{% endset %}[{{ body }}]", {}),
    ("set", "{% set body | upper %}abc{% endset %}{{ body }}", {}),
    ("filter block", "{% filter upper %}abc {{ 'd' }}{% endfilter %}", {}),
    # --- macros ---
    ("macro", "{% macro greet(name, greeting='Hello') %}{{ greeting }}, {{ name }}!{% endmacro %}{{ greet('Ann') }} {{ greet('Bob', 'Hi') }} {{ greet(name='Cy', greeting='Yo') }}", {}),
    ("macro", "{% macro m(x) %}[{{ x }}|{{ x is defined }}]{% endmacro %}{{ m() }}", {}),
    ("macro", "{% set outer = 'o' %}{% macro m() %}{{ outer }}{% endmacro %}{{ m() }}", {}),
    ("macro", "{%- macro render(v) -%}\n{%- if v is mapping -%}{% for k, x in v.items() %}{{ k }}:{{ render(x) }} {% endfor %}{%- else -%}{{ v }}{%- endif -%}\n{%- endmacro -%}\n{{ render({'a': {'b': 1}, 'c': 2}) }}", {}),
    # --- filters ---
    ("filters", "{{ '  x  '|trim }}|{{ 'xxyxx'|trim('x') }}|{{ 5|string }}|{{ 'ab'|upper }}|{{ 'AB'|lower }}|{{ 'ab cd'|title }}|{{ 'aB'|capitalize }}", {}),
    ("filters", "{{ [1, 2, 3]|length }}|{{ 'h\u00e9\U0001F44B'|length }}|{{ {'a': 1}|count }}|{{ [3, 1]|first }}|{{ [3, 1]|last }}|{{ 'abc'|first }}", {}),
    ("filters", "{{ [1, 2]|join }}|{{ [1, 2]|join(', ') }}|{{ l|join(',', attribute='n') }}", {"l": [{"n": "a"}, {"n": "b"}]}),
    ("filters", "{{ l|map(attribute='n')|list }}|{{ l|map(attribute='z', default='-')|list }}|{{ ['a', 'b']|map('upper')|list }}", {"l": [{"n": "a"}, {"n": "b"}]}),
    ("filters", "{{ l|selectattr('on')|map(attribute='n')|list }}|{{ l|rejectattr('on')|map(attribute='n')|list }}|{{ l|selectattr('n', 'equalto', 'b')|list }}|{{ l|selectattr('on', 'defined')|list|length }}", {"l": [{"n": "a", "on": True}, {"n": "b", "on": False}, {"n": "c"}]}),
    ("filters", "{{ [0, 1, 2, 3]|select|list }}|{{ [0, 1, 2, 3]|reject('odd')|list }}|{{ [1, 2, 3]|select('gt', 1)|list }}|{{ ['a', none]|select('none')|list }}|{{ [1, 'a']|select('string')|list }}", {}),
    ("filters", "{{ 'abc'|list }}|{{ {'a': 1}|list }}|{{ {'a': 1, 'b': 2}|items|list }}|{{ {'b': 1, 'a': 2}|dictsort }}|{{ {'b': 1, 'a': 2}|dictsort(by='value') }}", {}),
    ("filters", "{{ '3'|int }}|{{ '3.7'|int }}|{{ 'x'|int }}|{{ 'x'|int(7) }}|{{ 3.9|int }}|{{ '2.5'|float }}|{{ 3|float }}|{{ 'x'|float }}", {}),
    ("filters", "{{ -3|abs }}|{{ 2.567|round(2) }}|{{ 2.5|round }}|{{ 3.5|round }}|{{ 2.1|round(0, 'ceil') }}|{{ 2.9|round(method='floor') }}", {}),
    ("filters", "{{ [3, 1, 2]|sort }}|{{ [3, 1, 2]|sort(reverse=true) }}|{{ ['b', 'A', 'c']|sort }}|{{ l|sort(attribute='n')|map(attribute='n')|join }}|{{ [1, 2, 1, 3]|unique|list }}|{{ [1, 2]|reverse|list }}|{{ 'abc'|reverse }}", {"l": [{"n": "b"}, {"n": "a"}]}),
    ("filters", "{{ 'a\\nb\\n\\nc'|indent }}|{{ 'a\\nb'|indent(2, true) }}|{{ 'a\\n\\nb'|indent(2, blank=true) }}", {}),
    ("filters", "{{ '<a href=\"x\">&\\'</a>'|e }}|{{ '<b>'|escape }}|{{ '<b>'|safe }}|{{ 'one two  three'|wordcount }}", {}),
    ("filters", "{{ 'aXbX'|replace('X', '-') }}|{{ 'aXbX'|replace('X', '-', 1) }}|{{ [1, 2, 3]|sum }}|{{ [1, 5, 3]|max }}|{{ [4, 2, 3]|min }}", {}),
    ("filters", "{{ [1, 2, 3, 4, 5]|batch(2)|list }}|{{ [1, 2, 3]|batch(2, 0)|list }}", {}),
    ("filters", "{{ x|nosuchfilter }}", {}),
    ("filters", "[{{ 'a\\nb\\n'|indent(2, blank=true) }}]|[{{ 'a\\rb\\r\\nc\\u2028d'|indent(2) }}]|[{{ ''|indent(2, true) }}]|[{{ '\\n'|indent(2, true, true) }}]", {}),
    ("filters", "{{ 'a'|indent(2.0) }}", {}),
    ("filters", "[{{ 'ab'|center(5) }}]|[{{ 'abc'|center(6) }}]|[{{ 'a'|center(-3) }}]|[{{ 5|center(4) }}]", {}),
    ("filters", "{{ 'a'|center(5.0) }}", {}),
    ("filters", "{{ 'abc'|replace('', '-') }}|{{ 'abc'|replace('', '-', 2) }}|{{ ''|replace('', '-') }}|{{ 'abc'|replace('', '-', 0) }}|{{ 'aaa'|replace('a', 'bb', 2) }}", {}),
    ("filters", "{{ [1, 2, 3]|batch(2, none)|list }}|{{ [1, 2]|batch(0)|list }}|{{ [1, 2, 3]|batch(-1, 0)|list }}|{{ []|batch(2, 0)|list }}", {}),
    ("operators", "{{ (1, 2) * 2 }}|{{ 2 * (1,) }}|{{ (1, 2, 3)[1:] }}|{{ (1, 2, 3)[::-1] }}|{{ '' * 1000000000000 }}|{{ [] * 1000000000000 }}", {}),
    ("operators", "{{ 'ab' * 2.0 }}", {}),
    ("operators", "{{ none * 'ab' }}", {}),
    ("operators", "{{ [1] * [2] }}", {}),
    ("tojson", "{{ d|tojson }}", {"d": {"s": "caf\u00e9 \u4f60 \"q\" \\ \n\t\u0001 <&>'", "n": None, "b": True, "i": 1, "f": 1.5, "l": [1, [2, {}], []]}}),
    ("tojson", "{{ d|tojson(indent=2) }}", {"d": {"a": [1, {"b": None}], "c": {}, "e": []}}),
    ("tojson", "{{ d|tojson(indent=4) }}|{{ [1, 2]|tojson(separators=(',', ':')) }}|{{ d|tojson(sort_keys=true) }}|{{ '\u00e9'|tojson(ensure_ascii=true) }}", {"d": {"z": 1, "a": 2}}),
    ("tojson", "{{ {'a': '\u00e9'}|tojson(2) }}|{{ {'a': [1]}|tojson(false, 2) }}|{{ {'k': [1]}|tojson(indent='\t') }}|{{ {'a': 1, 'b': 2}|tojson(none, none, (';', '=')) }}", {}),
    ("tojson", "{{ '\U0001F44B'|tojson(ensure_ascii=true) }}|{{ 1.0|tojson }}|{{ 1e20|tojson }}", {}),
    # --- tests ---
    ("tests", "{{ 'a' is string }}|{{ 1 is string }}|{{ 1 is number }}|{{ 1.5 is number }}|{{ true is number }}|{{ 1 is integer }}|{{ true is integer }}|{{ 1.0 is float }}|{{ true is boolean }}|{{ 1 is boolean }}", {}),
    ("tests", "{{ {} is mapping }}|{{ [] is mapping }}|{{ 'a' is iterable }}|{{ [] is iterable }}|{{ {} is iterable }}|{{ 1 is iterable }}|{{ none is iterable }}|{{ 'a' is sequence }}|{{ 1 is sequence }}", {}),
    ("tests", "{{ true is true }}|{{ 1 is true }}|{{ false is false }}|{{ 0 is false }}|{{ none is none }}|{{ 0 is none }}", {}),
    ("tests", "{{ 3 is odd }}|{{ 3 is even }}|{{ 9 is divisibleby 3 }}|{{ 9 is divisibleby(2) }}|{{ 'a' is equalto 'a' }}|{{ 1 is eq 1 }}|{{ 1 is ne 2 }}|{{ 1 is lt 2 }}|{{ 2 is gt 1 }}|{{ 2 is ge 2 }}|{{ 2 is le 1 }}|{{ 2 is in [1, 2] }}", {}),
    ("tests", "{{ range is callable }}|{{ raise_exception is defined }}|{{ strftime_now is defined }}|{{ 'x' is callable }}|{{ namespace is callable }}", {}),
    ("tests", "{{ 'abc' is lower }}|{{ 'ABC' is upper }}|{{ x is not none }}|{{ x is not string }}", {"x": 1}),
    ("tests", "{{ 1 is nosuchtest }}", {}),
    # --- globals ---
    ("globals", "{{ range(3)|list }}|{{ range(1, 7, 2)|list }}|{{ range(3, 0, -1)|list }}|{% for i in range(2) %}{{ i }}{% endfor %}", {}),
    ("globals", "{{ dict(a=1, b='x') }}|{{ dict({'a': 1}, b=2) }}|{{ namespace(a=1).a }}", {}),
    ("globals", "{{ raise_exception('Bad role: ' ~ role) }}", {"role": "robot"}),
    ("globals", "{{ strftime_now('%Y-%m-%d %H:%M:%S') }}|{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%B %-d, %Y') }}|{{ strftime_now('%A %a %j %I%p %e %y') }}", {}),
    ("globals", "{% set x = range %}{{ x(2)|list }}", {}),
    # --- syntax ---
    ("syntax", "{{ {'a': {'b': 1}} }}", {}),
    ("syntax", "{{ {'a': {'b': 1}}['a'] }}", {}),
    ("syntax", "{% if x %}unclosed", {"x": 1}),
    ("syntax", "{% endif %}", {}),
    ("syntax", "{{ 1 + }}", {}),
    ("syntax", "{% generation %}gen {{ 1 }}{% endgeneration %}", {}),
    ("syntax", "{{ 'a' ~ (1 if true else 2) ~ [1,2,][1] }}", {}),
    ("syntax", "{{ -1|abs }}|{{ -l|length }}", {"l": [1, 2]}),
    ("syntax", "{{ l|length > 1 and l[0] is string }}", {"l": ["a", "b"]}),
    # --- constructs seen in other chat templates ---
    ("templates", "{{ tools|map(attribute='function')|map(attribute='name')|join(', ') }}", {"tools": [{"function": {"name": "a"}}, {"function": {"name": "b"}}]}),
    ("templates", "{{ messages|selectattr('role', 'eq', 'system')|list|length }}|{{ messages|rejectattr('content')|list|length }}", {"messages": MSGS}),
    ("templates", "{{ c|selectattr('type', 'equalto', 'text')|map(attribute='text')|join('\n') }}|{{ c[0].text }}|{{ c[0]['type'] }}", {"c": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]}),
    ("templates", "{% set ns = namespace(last=-1) %}{% for m in messages[::-1] %}{% set i = messages|length - 1 - loop.index0 %}{% if ns.last == -1 and m.role == 'user' %}{% set ns.last = i %}{% endif %}{% endfor %}{{ ns.last }}", {"messages": MSGS}),
    ("templates", "{%- macro t(s) -%}{%- if s.type == 'string' -%}str{%- elif s.type == 'array' -%}list[{{ t(s['items']) }}]{%- else -%}{{ s.type }}{%- endif -%}{%- endmacro -%}{{ t({'type': 'array', 'items': {'type': 'string'}}) }}", {}),
    ("templates", "{{ s.items is callable }}", {"s": {"type": "array"}}),
    ("templates", "{% for key, value in d|dictsort %}{{ key }}={{ value }} {% endfor %}|{% for k, v in d|items %}{{ k }}{% endfor %}", {"d": {"b": 1, "a": 2}}),
    ("templates", "{{ x|default(none) is none }}|{{ y is sameas false }}|{{ y is sameas 0 }}|{{ (x is not defined) or (x is none) }}", {"y": False}),
    ("templates", "{{ 'a' if true else 'b'|upper }}|{{ ('a' if false else 'b')|upper }}|{{ not (true and false) }}|{{ -1 ** 2 }}|{{ 'a' < 'B' }}", {}),
    ("templates", "{{ 1 if none }}|{{ '%' }}|{{ '\\x41\\u00e9' }}|{{ 'a\\\\n' }}", {}),
    ("templates", "{{- '\n' -}}  x  {#- c -#}  y  ", {}),
    ("templates", "{%- for m in messages %}\n    {%- if m.role == 'user' %}\n        {{- '<|user|>\n' + m.content + '<|end|>\n' }}\n    {%- elif m.role == 'system' %}\n        {{- '<|system|>\n' + m.content|trim + '<|end|>\n' }}\n    {%- endif %}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|assistant|>\n' }}\n{%- endif %}", {"messages": MSGS, "add_generation_prompt": True}),
    ("templates", "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% endfor %}", {"messages": MSGS, "bos_token": "<s>"}),
    ("templates", "{{ (messages|length / 2)|int }}|{{ messages|length // 2 }}|{{ (7 / 2)|round|int }}", {"messages": MSGS}),
    ("templates", "{{ m.tool_calls[0].function.arguments|tojson }}|{{ m.tool_calls[0].function.arguments is string }}|{{ m['tool_calls'][0]['function']['name'] }}", {"m": MSGS[2]}),
    ("templates", "{{ tool.function.parameters|tojson(indent=4) }}", {"tool": {"function": {"parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "\u00e9 \"x\""}}, "required": ["q"]}}}}),
    ("templates", "{%- set content = message.content if message.content is string else '' -%}{{ content|length }}", {"message": {"content": None}}),
    ("templates", "{{ message.reasoning_content is defined and message.reasoning_content is not none }}|{{ message.get('reasoning_content', '') }}", {"message": {"content": "x"}}),
    ("templates", "{%- if tools is iterable and tools|length > 0 %}T{% else %}F{% endif %}", {"tools": None}),
    ("templates", "{%- if tools is iterable and tools|length > 0 %}T{% else %}F{% endif %}", {}),
    ("templates", "{{ '<tool_call>\n{\"name\": \"' + tc.name + '\", \"arguments\": ' + (tc.arguments if tc.arguments is string else tc.arguments|tojson) + '}\n</tool_call>' }}", {"tc": {"name": "f", "arguments": {"x": [1, 2]}}}),
    ("templates", "{% for i in range(messages|length) %}{{ messages[i].role[0] }}{% endfor %}|{{ messages[-1].role }}|{{ messages[1:]|map(attribute='role')|join(',') }}", {"messages": MSGS}),
    ("templates", "{{ 'ab' in ['ab'] }}|{{ 'a' in ['ab'] }}|{{ {'a': 1}.a }}|{{ [1, 2, 3][-1:] }}|{{ 'abc'[:-1] }}", {}),
    ("templates", "{{ messages[0].content.split('.')|first }}|{{ (messages[0].content|string).upper()[0:2] }}|{{ messages[0].content|wordcount }}", {"messages": MSGS}),
    ("templates", "{% if messages[0].role == 'system' %}{% set sys = messages[0].content %}{% set msgs = messages[1:] %}{% else %}{% set msgs = messages %}{% endif %}{{ sys }}:{{ msgs|length }}", {"messages": MSGS}),
    ("templates", "{{ x.content }}", {"x": "str"}),
    ("templates", "{{ x['content'] }}", {"x": None}),
    ("templates", "{{ x.content }}", {"x": None}),
    ("templates", "{{ x.content is defined }}", {"x": None}),
    ("templates", "{{ x[0] }}", {"x": {}}),
    ("templates", "{{ x[0] }}", {"x": None}),
    ("templates", "{{ x[3] }}", {"x": [1]}),
    ("templates", "{{ x[3].y }}", {"x": [1]}),
    ("templates", "{{ content + 'a' }}", {"content": None}),
    ("templates", "{{ 'a' + content }}", {"content": None}),
    ("templates", "{{ 'a' + content }}", {"content": ["x"]}),
    ("templates", "{{ content|trim }}|{{ content|length }}", {"content": None}),
    ("templates", "{{ content|length }}", {"content": 5}),
    ("templates", "{{ n|length }}", {"n": None}),
    ("templates", "{{ content.strip() }}", {"content": ["x"]}),
    ("templates", "{{ d|tojson }}", {"d": {"1": 1}}),
    ("templates", "{{ 5|string + 'x' }}|{{ 5 ~ 'x' }}|{{ '5'|int + 1 }}|{{ 3.0|int }}|{{ true|int }}|{{ none|int }}", {}),
    ("templates", "{% for x in d %}{{ x }}{% endfor %}|{% for x in d.values() %}{{ x }}{% endfor %}", {"d": {"a": 1, "b": 2}}),
    ("templates", "{% for x in [1, 2] %}{% for y in [3, 4] %}{% if y == 4 %}{% break %}{% endif %}{{ x }}{{ y }}{% endfor %}{% endfor %}", {}),
    ("templates", "{% for x in [1, 2, 3] %}{{ loop.changed(x) }}{% endfor %}", {}),
    ("templates", "{{ [1, 2, 3]|first is number }}|{{ [[1]]|first|first }}|{{ ''|first is defined }}", {}),
    ("templates", "{{ undefined_function() }}", {}),
    ("templates", "{{ messages.role }}", {"messages": MSGS}),
    ("templates", "{{ (1, 2) == [1, 2] }}|{{ (1,) }}|{{ [(1, 2)]|tojson }}|{{ {'a': 1}.items()|list|tojson }}", {}),
    # --- realistic fragments ---
    ("chat", "{% for m in messages %}{% if m.role == 'assistant' and m.tool_calls is defined %}{% for tc in m.tool_calls %}{{ tc.function.name }}({{ tc.function.arguments|tojson }}){% endfor %}{% else %}<{{ m.role }}>{{ m.content }}\n{% endif %}{% endfor %}", {"messages": MSGS}),
    ("chat", "{%- if messages[0]['role'] == 'system' %}\n    {%- set system_message = messages[0]['content']|trim %}\n    {%- set loop_messages = messages[1:] %}\n{%- else %}\n    {%- set system_message = '' %}\n{%- endif %}\n[{{ system_message }}]{{ loop_messages|length }}", {"messages": MSGS}),
    ("chat", "{{ messages[2].content is none }}|{{ messages[2].content is string }}|{{ messages[1].content is iterable }}|{{ messages[2].tool_calls[0].function.arguments is mapping }}", {"messages": MSGS}),
]


def main():
    env = chat_templates.make_environment(datetime.datetime.fromisoformat("2025-03-14T15:09:26"))
    out = []
    for feature, template, variables in SNIPPETS:
        entry = {"feature": feature, "template": template, "vars": variables}
        try:
            entry["output"] = env.from_string(template).render(**variables)
        except chat_templates.TemplateRaised as e:
            entry["error"] = str(e)
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"
        out.append(entry)
    with open(OUT, "w", encoding="utf-8", newline="") as f:
        f.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"jinja_snippets.py: wrote {len(out)} snippets into {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
