// The escaping template (src/lib/html.ts): every interpolation is text unless the template or trusted()
// made it; arrays join, nothing-values vanish, and nothing from outside can pass itself off as markup.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joined, markup, type SafeHtml, show, trusted } from '../../src/lib/html.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';

test('the five characters that can change markup are escaped, in text and in a quoted attribute', () => {
  assert.equal(markup`<p>${`<>&"'`}</p>`.html, '<p>&lt;&gt;&amp;&quot;&#39;</p>');
  assert.equal(markup`<p>${HOSTILE}</p>`.html, '<p>&lt;img src=x onerror=alert(1)&gt;</p>');
  // a value cannot close its attribute and open another
  const attribute = markup`<input value="${'" onfocus="alert(1)'}">`.html;
  assert.equal(attribute, '<input value="&quot; onfocus=&quot;alert(1)">');
  assert.equal(markup`<b title='${"' x='1"}'>`.html, "<b title='&#39; x=&#39;1'>");
  // already-escaped text is text: its & is escaped again, so the reader sees what was sent
  assert.equal(markup`${'&lt;'}`.html, '&amp;lt;');
});

test('the template text itself is markup; numbers and strings without specials pass unchanged', () => {
  assert.equal(markup`<b>${16383}</b> ${'orders'} ${0}`.html, '<b>16383</b> orders 0');
  assert.equal(markup``.html, '');
  assert.equal(markup`${'é€ {x}: –'}`.html, 'é€ {x}: –');
});

test('nesting: markup made by the template goes in as markup, once, however deep', () => {
  const inner = markup`<code>${HOSTILE}</code>`;
  const outer = markup`<p>${inner}</p>`;
  assert.equal(outer.html, '<p><code>&lt;img src=x onerror=alert(1)&gt;</code></p>');
  assert.equal(markup`<div>${outer}</div>`.html, `<div>${outer.html}</div>`);
});

test('arrays render item by item with nothing between; joined() puts an escaped separator between', () => {
  const items = ['a<b', markup`<i>c</i>`, ['d', markup`<br>`]];
  assert.equal(markup`<li>${items}</li>`.html, '<li>a&lt;b<i>c</i>d<br></li>');
  assert.equal(markup`${[]}`.html, '');
  assert.equal(joined(['a', markup`<b>b</b>`, 'c'], ' · ').html, 'a · <b>b</b> · c');
  assert.equal(joined(['x', 'y'], '<hr>').html, 'x&lt;hr&gt;y');
  assert.equal(joined(['x', 'y'], markup`<wbr>`).html, 'x<wbr>y');
  assert.equal(joined([], ' ').html, '');
});

test('null, undefined and false render nothing; true, 0 and "" render as they read', () => {
  assert.equal(markup`[${null}][${undefined}][${false}]`.html, '[][][]');
  assert.equal(markup`[${true}][${0}][${''}]`.html, '[true][0][]');
  const compact = false;
  assert.equal(markup`<ol class="list${compact && ' is-compact'}">`.html, '<ol class="list">');
});

test('the brand cannot be forged: a look-alike object, a string, JSON or a prototype copy is text', () => {
  const lookAlike = { html: HOSTILE } as unknown as SafeHtml;
  assert.equal(markup`${lookAlike}`.html, '[object Object]');
  const fromJson = JSON.parse(JSON.stringify(markup`<b>x</b>`)) as SafeHtml;
  assert.equal(markup`${fromJson}`.html, '[object Object]');
  const copy = Object.assign(Object.create(Object.getPrototypeOf(markup`x`)), { html: HOSTILE });
  assert.equal(markup`${copy}`.html, '[object Object]');
  assert.equal(markup`${'<b>x</b>'}`.html, '&lt;b&gt;x&lt;/b&gt;');
  // the value the template made cannot be changed after the fact
  const made = markup`<b>x</b>`;
  assert.throws(() => {
    (made as { html: string }).html = HOSTILE;
  }, TypeError);
  assert.equal(made.html, '<b>x</b>');
});

test('the tag refuses to be called as a function with a made-up template', () => {
  const fake = ['<script>alert(1)</script>'] as unknown as TemplateStringsArray;
  assert.throws(() => markup(fake), /markup is a template tag: write markup`…`/);
});

test('trusted() passes constant markup through, and show() writes only SafeHtml into innerHTML', () => {
  assert.equal(markup`<p>${trusted('<wbr>')}</p>`.html, '<p><wbr></p>');
  const region = { innerHTML: '' };
  show(region, markup`<p>${HOSTILE}</p>`);
  assert.equal(region.innerHTML, '<p>&lt;img src=x onerror=alert(1)&gt;</p>');
});
