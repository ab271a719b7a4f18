"""Music Retrieval Evaluation — the dashboard frame: navigation, permalinks and the shared
sidebar."""

import streamlit as st

if __name__ != "__main__":
    # `streamlit run app.py` imports this file for its server: Streamlit's, with the routes that
    # serve the media folders' clips by ranges, from the file (dashboard/media_route.py), and the
    # charts' plotly.js (dashboard/plotly_route.py), and ready once it has imported what the
    # pages run with (dashboard/warm_up.py). Nothing of the frame is imported here: a component
    # declared before Streamlit's runtime exists is lost
    from dashboard.media_route import media_routes
    from dashboard.plotly_route import plotly_route
    from dashboard.warm_up import warm_start

    app = st.App(__file__, routes=[*media_routes(), plotly_route()], lifespan=warm_start)
else:   # a run of the page script
    from dashboard.errors import show_unexpected
    from dashboard.frame import PAGES, PageEnded, configure_page, declare_navigation, mark_frame
    from dashboard.permalink import read_permalink, write_permalink
    from dashboard.sidebar import sidebar

    configure_page()

    navigation = declare_navigation()
    page = navigation.url_path or PAGES[0][3]
    try:
        read_permalink(page)
        sidebar(page)
        mark_frame()
        navigation.run()
    except PageEnded:
        pass   # the page has said why it shows nothing more
    except Exception as exc:   # a bug: a short message, not Streamlit's exception box
        show_unexpected(exc)
    finally:   # the address bar is always a link to what is shown
        write_permalink(page)
