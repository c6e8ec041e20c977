import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * Schema texts by the schema object they were taken from. A connection's listed tools are
 * serialized more than once (the SDK asks for each output schema's validator, the executor for
 * each input schema's, then hashes them all): the first serialization of an object is kept for
 * the others. Listed schemas are the client's own parsed copies, read and never changed.
 */
const texts = new WeakMap<object, string>();

/**
 * A schema's JSON text, taken once per schema object (see {@link texts}).
 *
 * @example
 * ```ts
 * const key = schemaText(tool.inputSchema); // JSON.stringify(tool.inputSchema), remembered
 * ```
 */
export function schemaText(schema: object): string {
  let text = texts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    texts.set(schema, text);
  }
  return text;
}

/**
 * A JSON Schema validator provider that compiles each distinct schema once per process.
 * Compiling a tool's schema with Ajv costs far more than a whole tool call, and every MCP
 * connection (every run, every incarnation after a crash) lists the same tools again; the
 * validators are pure functions of the schema text, so sharing them changes nothing but time.
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'agent', version: '1' }, { jsonSchemaValidator: sharedSchemaValidators });
 * ```
 */
class SharedSchemaValidators implements jsonSchemaValidator {
  private readonly compiled = new Map<string, JsonSchemaValidator<unknown>>();
  private ajv: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const text = schemaText(schema);
    let validator = this.compiled.get(text);
    if (!validator) {
      this.ajv ??= new AjvJsonSchemaValidator();
      // Compiled from a copy, so a caller that later mutates its schema cannot change ours.
      validator = this.ajv.getValidator(JSON.parse(text) as JsonSchemaType);
      this.compiled.set(text, validator);
    }
    return validator as JsonSchemaValidator<T>;
  }
}

/** The process-wide provider: one compiled validator per distinct schema. */
export const sharedSchemaValidators: jsonSchemaValidator = new SharedSchemaValidators();
