import type { OpenApiDocument, Operation } from "../openapi/document";
import { html, Html } from "./html";
import { documentHead } from "./layout";

/** The part of a JSON schema the reference shows. */
export interface Schema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  /** A map's values (`refs` of a batch): what every key holds. */
  patternProperties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  required?: string[];
  description?: string;
  multipleOf?: number;
  minimum?: number;
}

interface Field {
  name: string;
  type: string;
  required: boolean;
  description?: string;
}

/** typeLabel writes a schema's type the way a reader says it: `string | null`, `"PUBLIC" | "PRIVATE"`, `array of integer`. */
function typeLabel(schema: Schema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return schema.anyOf.map(typeLabel).join(" | ");
  if (schema.type === "array") return `array of ${schema.items ? typeLabel(schema.items) : "anything"}`;
  const integer = schema.type === "number" && schema.multipleOf === 1 ? "integer" : undefined;
  const types = Array.isArray(schema.type) ? schema.type : [integer ?? schema.type ?? "any"];
  return types.map((type) => (type === "string" && schema.format ? `string (${schema.format})` : type)).join(" | ");
}

/** fields flattens a schema into one row per field: `collections[].links[].id`. */
function fields(schema: Schema, prefix = ""): Field[] {
  if (schema.type === "array" && schema.items) return fields(schema.items, `${prefix}[]`);
  const rows: Field[] = [];
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const name = prefix ? `${prefix}.${key}` : key;
    rows.push({ name, type: typeLabel(child), required: schema.required?.includes(key) ?? false, description: child.description });
    const inner = child.type === "array" ? child.items : child;
    if (inner?.properties) rows.push(...fields(child, name));
  }
  return rows;
}

function schemaTable(schema: Schema): Html {
  const rows = fields(schema);
  const note = schema.type === "array" ? html`<p class="note">A JSON array${schema.description ? html`: ${schema.description}` : ""}</p>` : undefined;
  if (rows.length === 0) return html`${note}<p class="note">${typeLabel(schema)}</p>`;
  return html`${note}<table><thead><tr><th>field</th><th>type</th><th></th><th>notes</th></tr></thead><tbody>
${rows.map((row) => html`<tr><td><code>${row.name}</code></td><td>${row.type}</td><td>${row.required ? "required" : "optional"}</td><td>${row.description ?? ""}</td></tr>
`)}</tbody></table>`;
}

type Content = Record<string, { schema?: Schema }> | undefined;

/** The error body has one shape everywhere; it is shown once, at the top, and named elsewhere. */
const isErrorShape = (schema: Schema) => Object.keys(schema.properties ?? {}).join() === "message,code,errors";

function contentOf(content: Content): Html {
  const entries = Object.entries(content ?? {});
  const json = content?.["application/json"]?.schema;
  const others = entries.map(([type]) => type).filter((type) => type !== "application/json");
  const body = json && isErrorShape(json) ? html`<p class="note">Body: <a href="#errors">the error body</a></p>` : json ? schemaTable(json) : undefined;
  return html`${body}${others.length ? html`<p class="note">Body: ${others.join(", ")}</p>` : undefined}`;
}

/** errorSection shows the error body once, from the first operation that answers one. */
function errorSection(operations: Operation[]): Html | undefined {
  for (const operation of operations) {
    for (const response of Object.values(operation.responses ?? {})) {
      const schema = ("content" in response ? (response.content as Content) : undefined)?.["application/json"]?.schema;
      if (schema && isErrorShape(schema)) return html`<h2 id="errors">Errors</h2><p class="note">Every refusal of /api/v1, /favicon and /l/{id} (to a client that is not a browser) has this body; <code>errors</code> only on 422.</p>${schemaTable(schema)}`;
    }
  }
  return undefined;
}

const SECURITY: Record<string, string> = { bearerToken: "Bearer token", sessionCookie: "session cookie" };

function securityLabel(security: Operation["security"]): string {
  const options = (security ?? []).map((requirement) => Object.keys(requirement).map((name) => SECURITY[name] ?? name).join(" + "));
  if (options.length === 0 || (options.length === 1 && options[0] === "")) return "none";
  if (options.includes("")) return `optional (${options.filter(Boolean).join(" or ")} identifies the owner)`;
  return options.join(" or ");
}

function operationSection(path: string, method: string, operation: Operation): Html {
  const parameters = (operation.parameters ?? []).filter((parameter) => "in" in parameter);
  const body = operation.requestBody && "content" in operation.requestBody ? (operation.requestBody.content as Content) : undefined;
  const responses = Object.entries(operation.responses ?? {}) as [string, { description?: string; headers?: Record<string, { description?: string }>; content?: Content }][];
  const anchor = `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-");
  return html`
<section class="operation" id="${anchor}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${path}</code></h3>
<p>${operation.summary ?? ""}${operation.description ? html`. ${operation.description}` : ""}</p>
<p class="note">Authentication: ${securityLabel(operation.security)}</p>
${parameters.length ? html`<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th></th><th>notes</th></tr></thead><tbody>
${parameters.map((parameter) => "in" in parameter ? html`<tr><td><code>${parameter.name}</code></td><td>${parameter.in}</td><td>${parameter.required ? "required" : "optional"}</td><td>${parameter.description ?? ""}</td></tr>` : undefined)}
</tbody></table>` : undefined}
${body ? html`<h4>Request body <span class="note">(application/json)</span></h4>${contentOf(body)}` : undefined}
<h4>Responses</h4>
${responses.map(([status, response]) => html`<div class="response"><p><strong>${status}</strong> ${response.description ?? ""}</p>
${response.headers ? html`<p class="note">${Object.entries(response.headers).map(([name, header], i) => html`${i ? ", " : ""}<code>${name}</code>${header.description ? html`: ${header.description}` : ""}`)}</p>` : undefined}
${contentOf(response.content)}</div>`)}
</section>`;
}

const STYLE = `
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #fff; --text: #1d2330; --muted: #5b6475; --border: #d5d9e0; --accent: #2f5bd3; }
@media (prefers-color-scheme: dark) { :root { --bg: #12151b; --card: #1b2029; --text: #e7eaf0; --muted: #9aa3b2; --border: #343b48; --accent: #7c9cff; } }
body { margin: 0; padding: 1.5rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--text); }
main { max-width: 60rem; margin: 0 auto; }
h1 { margin: 0 0 .25rem; } h2 { margin: 2rem 0 .5rem; text-transform: capitalize; } h4 { margin: 1rem 0 .3rem; }
nav ul { columns: 2; padding-left: 1.2rem; } a { color: var(--accent); }
.operation { background: var(--card); border: 1px solid var(--border); border-radius: 10px; padding: .5rem 1.25rem 1rem; margin: 1rem 0; }
.method { font-size: .8rem; font-weight: 700; padding: .1rem .45rem; border-radius: 5px; border: 1px solid var(--border); }
.note { color: var(--muted); margin: .2rem 0; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; margin: .3rem 0 .6rem; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--border); }
code { font-size: .9em; word-break: break-word; }
.response { border-left: 3px solid var(--border); padding-left: .75rem; margin: .5rem 0; }
`;

/** docsPage renders the API reference from the OpenAPI document: no script, nothing fetched from anywhere. */
export function docsPage(document: OpenApiDocument, documentPath: string): Html {
  const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
  return html`${documentHead("API reference", STYLE)}
</head>
<body>
<main>
<h1>linkshelf API reference</h1>
<p class="note">Version ${document.info.version}. ${document.info.description} The same in OpenAPI 3.1: <a href="${documentPath}"><code>${documentPath}</code></a>.</p>
<nav><ul>
${operations.map(({ path, method, operation }) => html`<li><a href="#${`${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-")}">${method.toUpperCase()} ${path}</a> ${operation.summary ?? ""}</li>
`)}</ul></nav>
${errorSection(operations.map(({ operation }) => operation))}
${document.tags.map((tag) => {
    const inTag = operations.filter(({ operation }) => operation.tags?.includes(tag.name));
    return inTag.length === 0 ? undefined : html`<h2>${tag.name}</h2><p class="note">${tag.description}</p>
${inTag.map(({ path, method, operation }) => operationSection(path, method, operation))}`;
  })}
</main>
</body>
</html>
`;
}
