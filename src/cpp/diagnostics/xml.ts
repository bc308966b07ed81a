import { XMLParser, XMLValidator } from "fast-xml-parser";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";

/** Elements that may repeat: the parser returns them as arrays even when one is present. */
const REPEATED = new Set(["testsuite", "testcase", "failure", "error", "skipped", "location", "symbol"]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  isArray: (name) => REPEATED.has(name),
});

/**
 * Parses an XML report and checks it against the schema of its format, so the adapters read typed values; a
 * malformed or unexpected document is a user error naming what is wrong, never a raw parser exception.
 */
export function parse_xml_report<TSchema extends v.GenericSchema>(xml: string, schema: TSchema, format: string): v.InferOutput<TSchema> {
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const { msg, line, col } = validation.err;
    throw air_failure({ kind: "user_error", message: `${format}: malformed XML at line ${line}, column ${col}: ${msg}` });
  }
  return check_report(parser.parse(xml), schema, format);
}

export function check_report<TSchema extends v.GenericSchema>(document: unknown, schema: TSchema, format: string): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, document);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const where = v.getDotPath(issue) ?? "the document";
  throw air_failure({ kind: "user_error", message: `${format}: unexpected content at ${where}: ${issue.message}` });
}
