import type { ProgramRule } from "../grammar/types.js";
import { CURL_RULES } from "./network/curl.js";
import { GH_RULES } from "./network/gh.js";
import { LOOKUP_RULES } from "./network/lookups.js";
import { OPENSSL_RULES } from "./network/openssl.js";
import { RSYNC_RULES } from "./network/rsync.js";
import { SOCAT_RULES } from "./network/socat.js";
import { SOCKET_RULES } from "./network/sockets.js";
import { SSH_RULES } from "./network/ssh.js";
import { WGET_RULES } from "./network/wget.js";

/**
 * Network tools and sockets (issue 11). Every transfer asks by its `network` category; the grammars find the clear
 * harm inside them — a credential read or sent, a startup file written, a program run, a socket other machines can
 * reach — and let the local uses of the same tools (a local copy, a digest, a version) run without a question.
 */
export const NETWORK_RULES: readonly ProgramRule[] = [
  ...CURL_RULES,
  ...WGET_RULES,
  ...SSH_RULES,
  ...RSYNC_RULES,
  ...SOCKET_RULES,
  ...SOCAT_RULES,
  ...OPENSSL_RULES,
  ...GH_RULES,
  ...LOOKUP_RULES,
];
