#include "parlor_xml.h"
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

void *parlor_xml_read(const char *bytes, int length, int *line) {
    xmlResetLastError();
    xmlDocPtr document = xmlReadMemory(bytes, length, "feed.xml", NULL,
                                       XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
    if (!document) {
        const xmlError *error = xmlGetLastError();
        *line = error ? error->line : 0;
    }
    return document;
}

void parlor_xml_free_document(void *document) { xmlFreeDoc((xmlDocPtr)document); }
void *parlor_xml_root(void *document) { return xmlDocGetRootElement((xmlDocPtr)document); }

int parlor_xml_kind(void *node) {
    switch (((xmlNodePtr)node)->type) {
    case XML_ELEMENT_NODE: return 1;
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE: return 2;
    default: return 0;
    }
}

void *parlor_xml_first_child(void *node) { return ((xmlNodePtr)node)->children; }
void *parlor_xml_next(void *node) { return ((xmlNodePtr)node)->next; }
const char *parlor_xml_name(void *node) { return (const char *)((xmlNodePtr)node)->name; }
const char *parlor_xml_prefix(void *node) {
    xmlNsPtr ns = ((xmlNodePtr)node)->ns;
    return ns ? (const char *)ns->prefix : NULL;
}
const char *parlor_xml_text(void *node) { return (const char *)((xmlNodePtr)node)->content; }

void *parlor_xml_first_attribute(void *node) { return ((xmlNodePtr)node)->properties; }
void *parlor_xml_next_attribute(void *attribute) { return ((xmlAttrPtr)attribute)->next; }
const char *parlor_xml_attribute_name(void *attribute) { return (const char *)((xmlAttrPtr)attribute)->name; }
const char *parlor_xml_attribute_prefix(void *attribute) {
    xmlNsPtr ns = ((xmlAttrPtr)attribute)->ns;
    return ns ? (const char *)ns->prefix : NULL;
}
char *parlor_xml_attribute_value(void *attribute) { return (char *)xmlNodeGetContent((xmlNodePtr)attribute); }
void parlor_xml_free(void *pointer) { xmlFree(pointer); }
