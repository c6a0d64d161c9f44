// libxml2 from Debian (libxml2-dev), for reading feeds, through a header of its own: libxml2's headers
// pull in ICU's, which clash with the ICU Foundation carries, so Swift sees only opaque nodes and plain C
// here, and shim.c alone includes libxml2. Foundation's XMLParser on Linux wraps the same library but
// traps on some hostile documents (an element name that is not UTF-8, a processing instruction without
// data), so Parlor reads the tree itself.
#ifndef PARLOR_XML_H
#define PARLOR_XML_H

/// A document from `length` bytes, or NULL with the line libxml2 stopped at in `line`. No network, no
/// DTD loading, no entity substitution (external entities stay unread), CDATA merged into text,
/// libxml2's default limits on depth and sizes. Free it with parlor_xml_free_document.
void *parlor_xml_read(const char *bytes, int length, int *line);
void parlor_xml_free_document(void *document);
void *parlor_xml_root(void *document);

/// 1 for an element, 2 for text or CDATA, 0 for anything else (comments, processing instructions).
int parlor_xml_kind(void *node);
void *parlor_xml_first_child(void *node);
void *parlor_xml_next(void *node);
/// An element's local name and namespace prefix (NULL when none), as UTF-8 libxml2 has checked.
const char *parlor_xml_name(void *node);
const char *parlor_xml_prefix(void *node);
/// A text node's text.
const char *parlor_xml_text(void *node);

void *parlor_xml_first_attribute(void *node);
void *parlor_xml_next_attribute(void *attribute);
const char *parlor_xml_attribute_name(void *attribute);
const char *parlor_xml_attribute_prefix(void *attribute);
/// The attribute's value, allocated: free it with parlor_xml_free.
char *parlor_xml_attribute_value(void *attribute);
void parlor_xml_free(void *pointer);

#endif
