"""One page from its source to rendered Markdown (``pipeline.render_page_markdown``)."""
