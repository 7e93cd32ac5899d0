/** Roles shared by the interactive tier on both sides: the walk in the page and the snapshot's reading in the server. */

/** Roles an agent acts on. Containers (listbox, menu, tablist) are left out: their items are listed. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'switch',
  'combobox',
  'slider',
  'spinbutton',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'treeitem',
]);

/** Roles whose `checked` is reported even when false. */
export const CHECKABLE_ROLES: ReadonlySet<string> = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);

/** Roles whose value the tier shows: fields. */
export const VALUE_ROLES: ReadonlySet<string> = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider']);
