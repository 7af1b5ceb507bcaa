// The web console clicked through in headless Chromium (Debian's), driven
// by playwright-core, each page checked by axe-core. Started by
// tests/server/console_browser.rs against a `dataschema serve` it seeded:
//
//   node console.cjs BASE_URL FIXTURES_DIR ARTIFACTS_DIR
//
// Writes a screenshot of every page and axe.json (every violation, by
// page) into ARTIFACTS_DIR; exits 1 on a failed flow or on any serious or
// critical axe violation, printing why.
'use strict';

const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [base, fixtures, artifacts] = process.argv.slice(2);
if (!base || !fixtures || !artifacts) {
  console.error('usage: node console.cjs BASE_URL FIXTURES_DIR ARTIFACTS_DIR');
  process.exit(64);
}
fs.mkdirSync(artifacts, { recursive: true });
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const audits = [];
let shots = 0;

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/// A screenshot of the page, and axe's verdict on it.
async function visit(page, name) {
  shots += 1;
  const file = path.join(artifacts, `${String(shots).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  // The pages' Content-Security-Policy allows no script: the context
  // bypasses it for axe alone (`bypassCSP`), the pages run none of their own.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const run = await axe.run(document, { resultTypes: ['violations'] });
    return run.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  audits.push({ page: name, url: page.url(), violations: result });
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.DATASCHEMA_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // As root (CI), Chromium runs only without its sandbox.
    args: ['--no-sandbox'],
  });
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  const steps = [];
  const step = async (name, body) => {
    try {
      await body();
    } catch (err) {
      // What the page showed when the flow failed, kept beside the others.
      await page.screenshot({ path: path.join(artifacts, 'FAILED.png'), fullPage: true }).catch(() => {});
      const text = await page.textContent('body').catch(() => '');
      throw new Error(`${name}: ${err.message}\n  at ${page.url()}\n  the page read: ${text.replace(/\s+/g, ' ').slice(0, 2000)}`);
    }
    steps.push(name);
    console.log(`ok: ${name}`);
  };

  try {
    await step('names list, and the keyboard reaches the skip link first', async () => {
      await page.goto(`${base}/ui/`);
      check((await page.title()).includes('Subjects'), 'the list is titled Subjects');
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement.textContent);
      check(focused === 'Skip to content', `first Tab focuses "${focused}"`);
      for (const subject of ['orders-value', 'customer-value', 'payment-value']) {
        check(await page.getByRole('link', { name: subject, exact: true }).count() === 1, `${subject} listed`);
      }
      await visit(page, 'subjects');
    });

    await step('search and language filter, by keyboard', async () => {
      await page.getByLabel('Search names').fill('order');
      await page.getByLabel('Search names').press('Enter');
      await page.waitForURL(/q=order/);
      check(await page.getByRole('link', { name: 'orders-value' }).count() === 1, 'search finds orders-value');
      check(await page.getByRole('link', { name: 'payment-value' }).count() === 0, 'search hides payment-value');
      await page.getByLabel('Search names').fill('');
      await page.getByLabel('Language').selectOption('protobuf');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/language=protobuf/);
      check(await page.getByRole('link', { name: 'payment-value' }).count() === 1, 'protobuf filter keeps payment-value');
      check(await page.getByRole('link', { name: 'orders-value' }).count() === 0, 'protobuf filter hides orders-value');
      await visit(page, 'subjects-protobuf');
    });

    await step('a subject: mode, compatibility, versions', async () => {
      await page.goto(`${base}/ui/`);
      await page.getByRole('link', { name: 'orders-value', exact: true }).click();
      await page.waitForURL(/\/ui\/subject/);
      const body = await page.textContent('main');
      check(body.includes('BACKWARD'), 'the compatibility in effect is shown');
      check(body.includes('READWRITE'), 'the mode is shown');
      await visit(page, 'subject-avro');
    });

    for (const [subject, label] of [['orders-value', 'avro'], ['customer-value', 'json'], ['payment-value', 'protobuf']]) {
      await step(`diff v1 to v2 of ${subject} (${label}): each change marked`, async () => {
        await page.goto(`${base}/ui/subject?name=${encodeURIComponent(subject)}`);
        // The compare form, filled by keyboard.
        await page.getByLabel('From version').fill('1');
        await page.getByLabel('To version').fill('2');
        await page.getByLabel('To version').press('Enter');
        await page.waitForURL(/\/ui\/diff/);
        const breaking = await page.locator('.mark.breaking').count();
        check(breaking >= 1, `${subject}: a change is marked breaking`);
        check((await page.textContent('main')).includes('Against v1: breaks'), `${subject}: v1 breaks`);
        await visit(page, `diff-${label}`);
      });
    }

    await step('a version: text, canonical form, id, URN, guid', async () => {
      await page.goto(`${base}/ui/subject?name=payment-value`);
      await page.getByRole('link', { name: 'v2', exact: true }).click();
      await page.waitForURL(/\/ui\/version/);
      const body = await page.textContent('main');
      for (const part of ['urn:acme:schema:payment-value:2', 'Schema as registered', 'Canonical form', 'Guid', 'message Payment']) {
        check(body.includes(part), `the version page shows ${part}`);
      }
      await visit(page, 'version-protobuf');
    });

    await step('would this break anyone? (a breaking candidate)', async () => {
      await page.goto(`${base}/ui/`);
      await page.getByRole('link', { name: 'Would this break anyone?' }).click();
      await page.getByLabel('Subject', { exact: true }).fill('orders-value');
      await page.getByLabel('Schema type').selectOption('AVRO');
      await page.getByLabel('Candidate schema').fill(fs.readFileSync(path.join(fixtures, 'orders_breaking.avsc'), 'utf8'));
      await page.getByRole('button', { name: 'Check compatibility' }).click();
      await page.waitForLoadState();
      const body = await page.textContent('main');
      check(body.includes('Incompatible: this would break readers'), 'the candidate is reported incompatible');
      check(await page.locator('.mark.breaking').count() >= 1, 'a change is marked breaking');
      await visit(page, 'check-incompatible');
    });

    await step('would this break anyone? (a compatible candidate)', async () => {
      await page.getByLabel('Candidate schema').fill(fs.readFileSync(path.join(fixtures, 'orders_compatible.avsc'), 'utf8'));
      await page.getByRole('button', { name: 'Check compatibility' }).click();
      await page.waitForLoadState();
      check((await page.textContent('main')).includes('Compatible: this breaks no one'), 'compatible');
      await visit(page, 'check-compatible');
    });

    await step('would this break anyone? with a reference and metadata, by keyboard', async () => {
      await page.goto(`${base}/ui/check`);
      await page.getByLabel('Subject', { exact: true }).fill('payment-value');
      await page.getByLabel('Schema type').selectOption('PROTOBUF');
      await page.getByLabel('Candidate schema').fill(fs.readFileSync(path.join(fixtures, 'payment_with_money.proto'), 'utf8'));
      // The folded section opens from the keyboard, and Tab walks its
      // fields in order: the first reference's name, subject, version.
      const summary = page.locator('summary', { hasText: 'References, metadata and rules' });
      await summary.focus();
      await page.keyboard.press('Enter');
      check(await page.locator('details').evaluate((d) => d.open), 'Enter opens the references section');
      await page.keyboard.press('Tab');
      check(await page.evaluate(() => document.activeElement.id) === 'refName1', 'Tab reaches the first reference name');
      await page.keyboard.type('shop/money.proto');
      await page.keyboard.press('Tab');
      await page.keyboard.type('money-value');
      await page.keyboard.press('Tab');
      check(await page.evaluate(() => document.activeElement.id) === 'refVersion1', 'Tab reaches the version');
      await page.keyboard.type('1');
      await page.getByLabel('Metadata (JSON)').fill('{"properties": {"owner": "payments"}}');
      await page.getByRole('button', { name: 'Check compatibility' }).click();
      await page.waitForLoadState();
      const body = await page.textContent('main');
      check(body.includes('Compatible: this breaks no one'), 'the candidate with its reference is compatible');
      check(await page.locator('#refName1').inputValue() === 'shop/money.proto', 'the reference stays in the form');
      await visit(page, 'check-references');
    });

    await step('would this break anyone? mistakes named beside their fields', async () => {
      await page.locator('#refSubject1').fill('');
      await page.locator('#refVersion1').fill('first');
      await page.getByLabel('Metadata (JSON)').fill('{"properties": ');
      await page.getByRole('button', { name: 'Check compatibility' }).click();
      await page.waitForLoadState();
      const alert = page.getByRole('alert');
      check(await alert.count() === 1, 'one alert lists the mistakes');
      const text = await alert.textContent();
      for (const part of ['Reference 1: give the subject it names.', '"first" is not a version', 'Metadata is not JSON']) {
        check(text.includes(part), `the alert says ${part}`);
      }
      for (const id of ['refSubject1', 'refVersion1', 'metadata']) {
        check(await page.locator(`#${id}`).getAttribute('aria-invalid') === 'true', `${id} is marked invalid`);
      }
      // The field's own message is its description, as a screen reader reads it.
      const version = page.getByRole('textbox', { name: 'Reference 1 version' });
      const described = await version.getAttribute('aria-describedby');
      check(described === 'refVersion1-error', `the version is described by its error (${described})`);
      // Each listed mistake links to its field.
      await alert.getByRole('link', { name: /is not a version/ }).click();
      check(page.url().endsWith('#refVersion1'), 'the link goes to the field');
      check(!(await page.textContent('main')).includes('Compatible: this breaks no one'), 'nothing was checked');
      await visit(page, 'check-mistakes');
    });

    const id = await (await fetch(`${base}/subjects/orders-value/versions/1`)).json().then((v) => v.id);
    const guid = await (await fetch(`${base}/schemas/ids/${id}`)).json().then((v) => v.guid);
    const frame = `00 ${id.toString(16).padStart(8, '0')} 02 10`;
    for (const [kind, text] of [['id', String(id)], ['urn', 'urn:acme:schema:orders-value:1'], ['guid', guid], ['frame', frame]]) {
      await step(`look up a ${kind}`, async () => {
        await page.goto(`${base}/ui/`);
        await page.getByRole('link', { name: 'Look up' }).click();
        await page.getByLabel('Id, URN, guid or frame bytes').fill(text);
        await page.getByRole('button', { name: 'Look up' }).click();
        await page.waitForURL(/\/ui\/lookup\?/);
        check(await page.getByRole('link', { name: 'urn:acme:schema:orders-value:1' }).count() >= 1, `${kind} found`);
        await visit(page, `lookup-${kind}`);
      });
    }

    await step('the server: health, store, uptime, requests by route, refusals', async () => {
      // One refusal of each kind the page sums: a page not found (404).
      check((await page.goto(`${base}/ui/version?name=nobody-holds-this&v=1`)).status() === 404, 'a missing version is 404');
      await page.getByRole('link', { name: 'Server' }).click();
      await page.waitForURL(/\/ui\/server/);
      const body = await page.textContent('main');
      check(body.includes('ready'), 'the store is ready');
      check(body.includes('Versions held'), 'the counts are shown');
      check(body.includes('Up for'), 'the uptime is shown');
      const table = page.getByRole('table');
      const row = table.getByRole('row', { name: /^\/ui\/version\b/ });
      check(await row.count() === 1, 'the version route has a row');
      check((await row.textContent()).includes('404: 1'), 'its 404 is counted');
      const lookups = await table.getByRole('row', { name: /^\/ui\/lookup\b/ }).textContent();
      check(/200: [1-9]/.test(lookups), `the lookups are counted: ${lookups}`);
      const refusals = await page.locator('#refusals').textContent();
      check(refusals.includes('404 Not Found'), 'refusals by status');
      check(refusals.includes('Compile budget spent (429, code 42901)'), 'the compile budget refusals are shown');
      await visit(page, 'server');
    });

    await step('a hostile subject and schema run nothing', async () => {
      await page.goto(`${base}/ui/?q=${encodeURIComponent('<script>')}`);
      const link = page.getByRole('link', { name: /<script>/ });
      check(await link.count() === 1, 'the hostile subject is listed as text');
      await link.click();
      await page.getByRole('link', { name: 'v1', exact: true }).click();
      await page.waitForURL(/\/ui\/version/);
      check(await page.locator('main script, main img').count() === 0, 'no element from the store');
      check((await page.textContent('main')).includes("<script>alert('body')</script>"), 'the text is shown as text');
      await visit(page, 'hostile');
    });
  } finally {
    await browser.close();
  }

  check(dialogs.length === 0, `a page opened a dialog: ${dialogs.join(', ')}`);
  const foreign = requests.filter((url) => !url.startsWith(base));
  check(foreign.length === 0, `a page asked another host: ${foreign.join(', ')}`);
  fs.writeFileSync(path.join(artifacts, 'axe.json'), JSON.stringify(audits, null, 2));
  const all = audits.flatMap((a) => a.violations.map((v) => ({ page: a.page, ...v })));
  const serious = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  console.log(`axe: ${audits.length} pages, ${all.length} violations, ${serious.length} serious or critical`);
  for (const v of all) {
    console.log(`  ${v.page}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.join(', ')})`);
  }
  console.log(`screenshots: ${shots} in ${artifacts}`);
  check(serious.length === 0, 'axe found serious or critical violations');
  console.log(`${steps.length} flows passed`);
}

main().catch((err) => {
  console.error(`FAILED: ${err.message}`);
  process.exit(1);
});
