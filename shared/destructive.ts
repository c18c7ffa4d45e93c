// Commands no coding task needs and no approval should let through: wiping a disk or a home
// folder, powering the machine off, running a script straight from the network. They are
// refused in every approval mode, before the user is asked, with the reason.

const PATTERNS: [RegExp, string][] = [
  [/\brm\s+(-[a-zA-Z]*\s+)*(-[a-zA-Z]*[rR][a-zA-Z]*\s+)(-[a-zA-Z]*\s+)*(\/|\/\*|~\/?|\$HOME\/?|\/home\/?|\/root\/?|\/etc\/?|\/usr\/?)(\s|$|;|&|\|)/,
    "it deletes the root, home or a system folder recursively"],
  [/\brm\s.*--no-preserve-root/, "it deletes the whole file system"],
  [/\bmkfs(\.\w+)?\b/, "it formats a disk"],
  [/\bdd\b.*\bof=\/dev\/(sd|nvme|hd|vd|xvd|mmcblk|disk)/, "it writes over a disk device"],
  [/>\s*\/dev\/(sd|nvme|hd|vd|xvd|mmcblk|disk)\w*/, "it writes over a disk device"],
  [/(^|[;&|]\s*|\bsudo\s+)(shutdown|reboot|halt|poweroff)\b/, "it shuts the machine down"],
  [/(^|[;&|]\s*|\bsudo\s+)init\s+[06]\b/, "it shuts the machine down"],
  [/:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/, "it is a fork bomb"],
  [/\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/, "it runs a script downloaded from the network"],
  [/\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(0?777|a\+rwx)\s+\/(\s|$)/, "it opens every file of the system to everyone"],
  [/\bchown\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+\/(\s|$)/, "it changes the owner of every file of the system"],
];

/** Why `command` is refused outright, or undefined. */
export function destructiveReason(command: string): string | undefined {
  return PATTERNS.find(([pattern]) => pattern.test(command))?.[1];
}
