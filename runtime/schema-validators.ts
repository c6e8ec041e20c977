import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

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
    const text = JSON.stringify(schema);
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
