// The page as dictionaries for swift-mustache's MustacheParent lookups (built once, outside the timing).

import ParlorViews

extension ChatsPageViewModel {
    var mustacheParent: [String: Any] {
        var values: [String: Any] = [
            "layout": layout.mustacheParent,
            "chatList": chatList.mustacheParent,
            "hasConversation": hasConversation,
            "placeholderText": placeholderText,
        ]
        if let conversation { values["conversation"] = conversation }
        return values
    }
}

extension PageLayoutViewModel {
    var mustacheParent: [String: Any] {
        var values: [String: Any] = [
            "title": title, "basePath": basePath, "stylesheetURL": stylesheetURL, "scriptURL": scriptURL,
            "faviconURL": faviconURL, "csrfToken": csrfToken,
        ]
        if let eventsURL { values["eventsURL"] = eventsURL }
        if let user = signedInUser {
            values["signedInUser"] = [
                "displayName": user.displayName, "handle": user.handle, "avatar": user.avatar.mustacheParent,
                "chatsURL": user.chatsURL, "settingsURL": user.settingsURL, "signOutURL": user.signOutURL,
            ] as [String: Any]
        }
        return values
    }
}

extension ChatListViewModel {
    var mustacheParent: [String: Any] {
        var values: [String: Any] = [
            "isLoading": isLoading, "isEmpty": isEmpty, "items": items.map(\.mustacheParent),
            "newChatURL": newChatURL, "retryURL": retryURL,
        ]
        if let errorMessage { values["errorMessage"] = errorMessage }
        return values
    }
}

extension ChatListItemViewModel {
    var mustacheParent: [String: Any] {
        var values: [String: Any] = [
            "domID": domID, "url": url, "contactName": contactName, "contactHandle": contactHandle,
            "avatar": avatar.mustacheParent, "lastMessagePreview": lastMessagePreview, "lastDate": lastDate,
            "lastDateTooltip": lastDateTooltip, "lastDateISO": lastDateISO, "isCurrent": isCurrent,
        ]
        if let unreadBadge { values["unreadBadge"] = unreadBadge }
        if let unreadLabel { values["unreadLabel"] = unreadLabel }
        return values
    }
}

extension AvatarViewModel {
    var mustacheParent: [String: Any] {
        var values: [String: Any] = ["initials": initials, "colorClass": colorClass, "label": label]
        if let imageURL { values["imageURL"] = imageURL }
        return values
    }
}
