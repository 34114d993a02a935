package io.kvrouter.jinja;

import java.util.List;

/** An item of the {@code groupby} filter: a tuple {@code (grouper, list)} with those names. */
final class GroupTuple extends PyTuple {
  GroupTuple(Object grouper, List<Object> list) {
    super(grouper, list);
  }

  /** {@code grouper} or {@code list}, else null. */
  Object field(String name) {
    return name.equals("grouper") ? get(0) : name.equals("list") ? get(1) : null;
  }
}
