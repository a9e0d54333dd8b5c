// The reference page as one HTML string, from an OpenAPI 3.1 document (the one
// functions/src/app/openapi generates): operations grouped by tag, each with its security,
// parameters, request body fields, success fields and error codes.

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** @param {unknown} value */
const escape = (value) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** `code` spans for backticked words; everything else escaped. */
const prose = (text) => escape(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');

/** @param {Record<string, any>} document */
export function renderReference(document) {
  const operations = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) if (item[method]) operations.push({ path, method, op: item[method] });
  }
  const tags = document.tags.map((tag) => ({ ...tag, operations: operations.filter(({ op }) => op.tags?.[0] === tag.name) }));
  const nav = tags
    .map(
      (tag) =>
        `<li><a href="#tag-${escape(tag.name)}">${escape(tag.name)}</a><ul>${tag.operations
          .map(({ path, method, op }) => `<li><a href="#${escape(op.operationId)}"><span class="method ${method}">${method.toUpperCase()}</span> ${escape(path)}</a></li>`)
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = tags
    .map(
      (tag) =>
        `<section class="tag" id="tag-${escape(tag.name)}"><h2>${escape(tag.name)}</h2><p>${prose(tag.description)}</p>${tag.operations
          .map((entry) => renderOperation(entry, document))
          .join('')}</section>`,
    )
    .join('');
  const { info } = document;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(info.title)} reference</title>
<link rel="stylesheet" href="reference.css">
</head>
<body>
<nav class="toc" aria-label="Operations"><p class="brand">${escape(info.title)} <small>${escape(info.version)}</small></p><p><a href="/v1/openapi.json">openapi.json</a> · <a href="/dashboard/">Dashboard</a></p><ul>${nav}</ul></nav>
<main>
<header><h1>${escape(info.title)} reference</h1><p>${prose(info.summary)}</p>${(info.description ?? '')
    .split('\n\n')
    .map((paragraph) => `<p>${prose(paragraph)}</p>`)
    .join('')}</header>
${renderSecuritySchemes(document.components.securitySchemes)}
${sections}
</main>
</body>
</html>
`;
}

function renderSecuritySchemes(schemes) {
  const rows = Object.entries(schemes)
    .map(([name, scheme]) => `<tr><td><code>${escape(name)}</code></td><td>${escape(scheme.type === 'http' ? `${scheme.scheme} (${scheme.bearerFormat ?? ''})` : `${scheme.in} ${scheme.name}`)}</td><td>${prose(scheme.description)}</td></tr>`)
    .join('');
  return `<section id="authentication"><h2>Authentication</h2><table><thead><tr><th>Scheme</th><th>Sent as</th><th>What</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function renderOperation({ path, method, op }, document) {
  const security = op.security.length
    ? op.security.map((requirement) => Object.entries(requirement).map(([name, roles]) => `<code>${escape(name)}</code>${roles.length ? ` (${roles.map((r) => `<code>${escape(r)}</code>`).join(', ')})` : ''}`).join(' + ')).join(' or ')
    : 'none (public)';
  const parameters = (op.parameters ?? []).map((p) => (p.$ref ? resolve(document, p.$ref) : p));
  const parameterRows = parameters
    .map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : ''}</td><td>${escape(typeText(p.schema))}</td><td>${prose([p.description, constraintText(p.schema)].filter(Boolean).join(' '))}</td></tr>`)
    .join('');
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(op.responses)
    .map(([status, response]) => {
      const schema = response.content?.['application/json']?.schema;
      const success = status.startsWith('2');
      return `<li class="${success ? 'ok' : 'err'}"><span class="status">${escape(status)}</span> ${prose(response.description)}${success && schema ? fieldTable(schema, document) : ''}</li>`;
    })
    .join('');
  return `<article class="operation" id="${escape(op.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escape(path)}</code>${op.deprecated ? ' <span class="deprecated">legacy alias</span>' : ''}</h3>
<p class="summary">${prose(op.summary)}</p>${op.description ? `<p>${prose(op.description)}</p>` : ''}
<p class="security"><strong>Auth:</strong> ${security}</p>
${parameterRows ? `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Type</th><th>Rules</th></tr></thead><tbody>${parameterRows}</tbody></table>` : ''}
${op.requestBody ? `<h4>Request body</h4>${op.requestBody.description ? `<p>${prose(op.requestBody.description)}</p>` : ''}${body ? fieldTable(body, document) : ''}` : ''}
<h4>Responses</h4><ul class="responses">${responses}</ul>
</article>`;
}

function resolve(document, ref) {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node, key) => node?.[key], document);
}

/** A schema's fields as rows (nested objects and array items flattened with dotted names). */
function fieldTable(schema, document) {
  const rows = [];
  const visit = (node, name, required, depth) => {
    if (!node || depth > 8) return;
    if (node.$ref) node = resolve(document, node.$ref) ?? node;
    if (name) rows.push(`<tr><td><code>${escape(name)}</code></td><td>${escape(typeText(node))}</td><td>${required ? 'yes' : ''}</td><td>${prose([node.description, constraintText(node)].filter(Boolean).join(' '))}</td></tr>`);
    const requiredNames = new Set(node.required ?? []);
    for (const [child, sub] of Object.entries(node.properties ?? {})) visit(sub, name ? `${name}.${child}` : child, requiredNames.has(child), depth + 1);
    if (node.items && typeof node.items === 'object') visit(node.items, `${name || ''}[]`, false, depth + 1);
    for (const alternative of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) {
      if (alternative.properties || alternative.items) visit({ ...alternative, description: undefined }, '', false, depth + 1);
    }
  };
  visit(schema, '', false, 0);
  if (rows.length === 0) return '';
  return `<table class="fields"><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Rules</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function typeText(schema) {
  if (!schema) return '';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('array') && schema.items?.type) return `array of ${typeText(schema.items)}`;
  return types.join(' | ') || (schema.anyOf || schema.oneOf ? 'one of' : 'any');
}

function constraintText(schema) {
  if (!schema) return '';
  const parts = [];
  if (schema.enum) parts.push(`one of ${schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined) parts.push(`length ${schema.minLength ?? 0}–${schema.maxLength ?? '∞'}`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) parts.push(`${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}`);
  if (schema.minItems !== undefined || schema.maxItems !== undefined) parts.push(`${schema.minItems ?? 0}–${schema.maxItems ?? '∞'} items`);
  if (schema.maxProperties !== undefined) parts.push(`at most ${schema.maxProperties} keys`);
  if (schema.pattern) parts.push(`pattern \`${schema.pattern}\``);
  if (schema.format) parts.push(`format ${schema.format}`);
  return parts.join('; ');
}
