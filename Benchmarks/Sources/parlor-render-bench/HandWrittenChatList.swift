// The chat-list fragment written by hand, field by field, with the same escaping: the floor any
// template renderer of this page can approach on this machine. Checked byte for byte against Parlor's
// output before it is timed.

import ByteOutput
import ParlorTemplates
import ParlorViews

enum HandWrittenChatList {
    static func render(_ list: ChatListViewModel, into out: inout OutputBuffer) {
        out.append("<section class=\"chat-list\" id=\"chat-list\" aria-labelledby=\"chat-list-title\">\n<div class=\"chat-list-header\">\n<h2 id=\"chat-list-title\">Chats</h2>\n<a class=\"button\" href=\"")
        out.appendEscapingHTML(list.newChatURL)
        out.append("\">New chat</a>\n</div>\n")
        if list.isLoading { out.append("<p class=\"chat-list-status\" role=\"status\">Loading your chats…</p>\n") }
        if let error = list.errorMessage {
            out.append("<div class=\"chat-list-status error\" role=\"alert\"><p>")
            out.appendEscapingHTML(error)
            out.append("</p><a href=\"")
            out.appendEscapingHTML(list.retryURL)
            out.append("\">Try again</a></div>\n")
        }
        if list.isEmpty {
            out.append("<p class=\"chat-list-status\">No chats yet. <a href=\"")
            out.appendEscapingHTML(list.newChatURL)
            out.append("\">Start one</a>.</p>\n")
        }
        out.append("<ol class=\"chat-list-items\" id=\"chat-list-items\">\n")
        for item in list.items { self.item(item, into: &out) }
        out.append("</ol>\n</section>\n")
    }

    static func item(_ item: ChatListItemViewModel, into out: inout OutputBuffer) {
        out.append("<li class=\"chat-list-item")
        if item.isCurrent { out.append(" is-current") }
        out.append("\" id=\"")
        out.appendEscapingHTML(item.domID)
        out.append("\">\n<a href=\"")
        out.appendEscapingHTML(item.url)
        out.append("\"")
        if item.isCurrent { out.append(" aria-current=\"page\"") }
        out.append(">\n")
        let avatar = item.avatar
        if let imageURL = avatar.imageURL {
            out.append("<img class=\"avatar\" src=\"")
            out.appendEscapingHTML(imageURL)
            out.append("\" alt=\"")
            out.appendEscapingHTML(avatar.label)
            out.append("\" width=\"40\" height=\"40\">")
        } else {
            out.append("<span class=\"avatar ")
            out.appendEscapingHTML(avatar.colorClass)
            out.append("\" role=\"img\" aria-label=\"")
            out.appendEscapingHTML(avatar.label)
            out.append("\">")
            out.appendEscapingHTML(avatar.initials)
            out.append("</span>")
        }
        out.append("\n<span class=\"chat-list-text\">\n<span class=\"chat-list-name\" dir=\"auto\">")
        out.appendEscapingHTML(item.contactName)
        out.append("</span>\n<span class=\"chat-list-preview\" dir=\"auto\">")
        out.appendEscapingHTML(item.lastMessagePreview)
        out.append("</span>\n</span>\n<time class=\"chat-list-date\" datetime=\"")
        out.appendEscapingHTML(item.lastDateISO)
        out.append("\" title=\"")
        out.appendEscapingHTML(item.lastDateTooltip)
        out.append("\">")
        out.appendEscapingHTML(item.lastDate)
        out.append("</time>\n")
        if let badge = item.unreadBadge {
            let label = item.unreadLabel ?? ""
            out.append("<span class=\"badge\" title=\"")
            out.appendEscapingHTML(label)
            out.append("\"><span aria-hidden=\"true\">")
            out.appendEscapingHTML(badge)
            out.append("</span><span class=\"visually-hidden\">")
            out.appendEscapingHTML(label)
            out.append("</span></span>")
        }
        out.append("\n</a>\n</li>\n")
    }
}
